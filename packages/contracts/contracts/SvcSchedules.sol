// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SvcErrors, SvcPaySchedule} from "./SvcTypes.sol";

/// @title SvcCalendar
/// @notice Whole months added to a unix time, the day of the month kept and clamped to the month's last day (Jan 31
/// plus one month is Feb 28, or 29; plus two is Mar 31), the time of day kept. Days to civil dates and back by Howard
/// Hinnant's algorithms (proleptic Gregorian, from 1970 on), as the domain's `addMonths` computes them.
library SvcCalendar {
    function addMonths(uint256 time, uint256 months) internal pure returns (uint256) {
        (uint256 year, uint256 month, uint256 day) = _civil(time / 1 days);
        uint256 shifted = month - 1 + months;
        year += shifted / 12;
        month = shifted % 12 + 1;
        uint256 last = _daysInMonth(year, month);
        if (day > last) day = last;
        return _days(year, month, day) * 1 days + time % 1 days;
    }

    function _civil(uint256 days_) private pure returns (uint256 year, uint256 month, uint256 day) {
        uint256 z = days_ + 719468;
        uint256 era = z / 146097;
        uint256 doe = z - era * 146097;
        uint256 yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        uint256 doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        uint256 mp = (5 * doy + 2) / 153;
        day = doy - (153 * mp + 2) / 5 + 1;
        month = mp < 10 ? mp + 3 : mp - 9;
        year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    }

    function _days(uint256 year, uint256 month, uint256 day) private pure returns (uint256) {
        if (month <= 2) year -= 1;
        uint256 era = year / 400;
        uint256 yoe = year - era * 400;
        uint256 doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        uint256 doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
    }

    function _daysInMonth(uint256 year, uint256 month) private pure returns (uint256) {
        if (month == 2) return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28;
        return (month == 4 || month == 6 || month == 9 || month == 11) ? 30 : 31;
    }
}

/// @title SvcSchedules
/// @notice An account's pay schedules: a standing order signed once (`SvcPaySchedule`), registered by the forwarder,
/// whose instalment `n` (0 to count - 1) anyone may execute once, from its due time until its validity ends. An
/// instalment missed past its validity stays unpaid; a later one can still be paid. A schedule ends, for good, when the
/// service's operators cancel it or when its signer's authority here is revoked (even if granted again later).
abstract contract SvcSchedules is SvcErrors {
    uint8 internal constant WEEKLY = 1;
    uint8 internal constant BIWEEKLY = 2;
    uint8 internal constant MONTHLY = 3;
    /// @notice The most instalments a schedule may have (ten years of months); each is a bit of `paid`.
    uint256 public constant MAX_INSTALMENTS = 120;
    /// @notice The most payees a schedule may have, so that an instalment fits a block.
    uint256 public constant MAX_SCHEDULE_PAYEES = 255;
    /// @dev Set in `paid` from registration on: it marks the schedule as registered, and the first instalment's write
    /// is then to a non-zero slot (2,900 gas rather than 20,000).
    uint256 private constant REGISTERED = 1 << 255;

    /// @notice A registered schedule, in three slots.
    struct Schedule {
        address token;
        uint40 firstPayAt;
        uint32 validSeconds;
        uint8 interval;
        uint8 count;
        bool canceled;
        address signer;
        uint32 signerRevocations;
        uint8 payeeCount;
        uint256 paid;
    }

    /// @notice One payee of a registered schedule, in one slot.
    struct Payee {
        address recipient;
        uint96 amount;
    }

    mapping(bytes32 id => Schedule) public schedules;
    mapping(bytes32 id => mapping(uint256 index => Payee)) public schedulePayees;
    /// @notice How many times a wallet's authority on this account was revoked: a schedule lives while its signer's
    /// count is what it was when the schedule was registered.
    mapping(address wallet => uint32) public revocations;

    event ScheduleRegistered(
        bytes32 indexed id,
        address indexed signer,
        address token,
        uint256 firstPayAt,
        uint256 interval,
        uint256 count,
        uint256 validUntilOffset
    );
    event InstalmentPaid(
        bytes32 indexed id, uint256 indexed n, address indexed recipient, address token, uint256 amount
    );
    event ScheduleCanceled(bytes32 indexed id);

    /// @notice Pays instalment `n` of schedule `id` to each of its payees, once; anyone may call it from the
    /// instalment's due time until its validity ends. All its payees are paid, or none.
    function executeInstalment(bytes32 id, uint256 n) external {
        Schedule storage schedule = schedules[id];
        uint256 paid = schedule.paid;
        if (paid == 0) revert ScheduleNotFound(id);
        if (schedule.canceled || revocations[schedule.signer] != schedule.signerRevocations) {
            revert ScheduleNotActive(id);
        }
        if (n >= schedule.count) revert InstalmentNotFound(id, n);
        uint256 bit = 1 << n;
        if (paid & bit != 0) revert InstalmentAlreadyPaid(id, n);
        uint256 dueAt = _dueAt(schedule, n);
        if (block.timestamp < dueAt) revert InstalmentNotDue(id, n, dueAt, block.timestamp);
        uint256 validUntil = dueAt + schedule.validSeconds;
        if (block.timestamp > validUntil) revert InstalmentValidityElapsed(id, n, validUntil, block.timestamp);
        schedule.paid = paid | bit;
        address token = schedule.token;
        uint256 payees = schedule.payeeCount;
        for (uint256 i = 0; i < payees; ++i) {
            Payee memory payee = schedulePayees[id][i];
            _transfer(token, payee.recipient, payee.amount);
            emit InstalmentPaid(id, n, payee.recipient, token, payee.amount);
        }
    }

    /// @notice When instalment `n` of schedule `id` is due, and until when it may be paid.
    function instalmentWindow(bytes32 id, uint256 n) external view returns (uint256 dueAt, uint256 validUntil) {
        Schedule storage schedule = schedules[id];
        if (schedule.paid == 0) revert ScheduleNotFound(id);
        if (n >= schedule.count) revert InstalmentNotFound(id, n);
        dueAt = _dueAt(schedule, n);
        validUntil = dueAt + schedule.validSeconds;
    }

    /// @notice Whether schedule `id` is registered and neither canceled nor ended by its signer's revocation.
    function scheduleActive(bytes32 id) external view returns (bool) {
        Schedule storage schedule = schedules[id];
        return schedule.paid != 0 && !schedule.canceled
            && revocations[schedule.signer] == schedule.signerRevocations;
    }

    function _registerSchedule(address signer, SvcPaySchedule calldata request) internal {
        bytes32 id = request.id;
        if (schedules[id].paid != 0) revert ScheduleAlreadyRegistered(id);
        bytes32 intervalHash = keccak256(bytes(request.interval));
        uint8 interval = intervalHash == keccak256("weekly")
            ? WEEKLY
            : intervalHash == keccak256("biweekly") ? BIWEEKLY : intervalHash == keccak256("monthly") ? MONTHLY : 0;
        uint256 payees = request.payees.length;
        if (
            interval == 0 || request.count == 0 || request.count > MAX_INSTALMENTS || payees == 0
                || payees > MAX_SCHEDULE_PAYEES || request.firstPayAt > type(uint40).max
                || request.validMinutes > type(uint32).max / 60
        ) revert InvalidSchedule(id);
        for (uint256 i = 0; i < payees; ++i) {
            address recipient = request.payees[i].recipient;
            uint256 amount = request.payees[i].amount;
            if (recipient == address(0) || amount > type(uint96).max) revert InvalidSchedule(id);
            schedulePayees[id][i] = Payee({recipient: recipient, amount: uint96(amount)});
        }
        schedules[id] = Schedule({
            token: request.token,
            firstPayAt: uint40(request.firstPayAt),
            validSeconds: uint32(request.validMinutes * 60),
            interval: interval,
            count: uint8(request.count),
            canceled: false,
            signer: signer,
            signerRevocations: revocations[signer],
            payeeCount: uint8(payees),
            paid: REGISTERED
        });
        emit ScheduleRegistered(
            id, signer, request.token, request.firstPayAt, interval, request.count, request.validMinutes * 60
        );
    }

    /// @dev Cancels schedule `id` for good; cancelling one already canceled changes nothing, so a retry is harmless.
    function _cancelSchedule(bytes32 id) internal {
        Schedule storage schedule = schedules[id];
        if (schedule.paid == 0) revert ScheduleNotFound(id);
        if (schedule.canceled) return;
        schedule.canceled = true;
        emit ScheduleCanceled(id);
    }

    function _dueAt(Schedule storage schedule, uint256 n) private view returns (uint256) {
        uint256 first = schedule.firstPayAt;
        uint8 interval = schedule.interval;
        if (interval == MONTHLY) return SvcCalendar.addMonths(first, n);
        return first + n * (interval == WEEKLY ? 7 days : 14 days);
    }

    function _transfer(address token, address to, uint256 amount) internal virtual;
}

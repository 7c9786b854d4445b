// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SvcSchedules} from "./SvcSchedules.sol";
import {IERC20, SvcErrors, SvcPaySchedule, SvcPayment, SvcRoleGrant} from "./SvcTypes.sol";

/// @notice What an account needs from its forwarder: where the e-mail escrow is.
interface ISvcForwarderEscrow {
    function escrow() external view returns (address);
}

/// @notice What an account needs from the escrow.
interface ISvcEscrowDeposit {
    function deposit(bytes32 claimId, address token, uint256 amount, bytes32 paymentId) external;
}

/// @title SvcAccount
/// @notice The `svc_account` of a team or a user: it holds tokens, pays at once, registers intents that anyone may
/// execute once due and pay schedules whose instalments anyone may execute once each (`SvcSchedules`), and keeps the
/// roles its manager requests grant. Only its forwarder moves funds, registers or grants, and only after verifying a
/// signature by a wallet this account authorises.
contract SvcAccount is SvcSchedules {
    uint256 internal constant PAY_IMMEDIATE = 1;
    uint256 internal constant PAY_INTENT = 2;
    uint256 internal constant PAY_ESCROW = 3;

    bytes32 public constant TEAM_ADMIN = keccak256("team_admin");
    bytes32 public constant TEAM_FINANCE_ADMIN = keccak256("team_finance_admin");
    bytes32 public constant TEAM_VIEWER = keccak256("team_viewer");

    /// @notice What an intent is: registered, then executed once.
    enum IntentState {
        None,
        Registered,
        Executed
    }

    /// @notice A payment registered for later execution.
    struct Intent {
        bytes32 groupID;
        address token;
        address recipient;
        uint256 amount;
        uint64 payAtTime;
        uint64 validUntil;
        IntentState state;
    }

    address public immutable forwarder;
    /// @notice The wallet that created the account; address(0) once the service's revoker has revoked it.
    address public owner;
    mapping(bytes32 role => mapping(address account => bool)) public hasRole;
    mapping(bytes32 id => Intent) public intents;

    event PaymentExecuted(
        bytes32 indexed id, bytes32 indexed groupID, address indexed recipient, address token, uint256 amount
    );
    event IntentRegistered(
        bytes32 indexed id,
        bytes32 indexed groupID,
        address indexed recipient,
        address token,
        uint256 amount,
        uint256 payAtTime,
        uint256 validUntil
    );
    event IntentExecuted(
        bytes32 indexed id, bytes32 indexed groupID, address indexed recipient, address token, uint256 amount
    );
    event PaymentEscrowed(bytes32 indexed id, bytes32 indexed groupID, bytes32 indexed claimId, address token, uint256 amount);
    event RoleGranted(bytes32 indexed roleHash, address indexed account, string role);
    event RoleRevoked(bytes32 indexed roleHash, address indexed account);
    event OwnerRevoked(address indexed owner);

    constructor(address forwarder_, address owner_) {
        forwarder = forwarder_;
        owner = owner_;
    }

    modifier onlyForwarder() {
        if (msg.sender != forwarder) revert NotForwarder(msg.sender);
        _;
    }

    /// @notice Whether `signer` may sign payments for this account: its owner, a team admin or a finance admin.
    function canPay(address signer) public view returns (bool) {
        return signer == owner || hasRole[TEAM_ADMIN][signer] || hasRole[TEAM_FINANCE_ADMIN][signer];
    }

    /// @notice Whether `signer` may grant roles on this account: its owner or a team admin.
    function canManage(address signer) public view returns (bool) {
        return signer == owner || hasRole[TEAM_ADMIN][signer];
    }

    /// @notice Carries out a verified batch, atomically: any failing payment reverts the whole batch.
    function pay(SvcPayment[] calldata payments) external onlyForwarder {
        if (payments.length == 0) revert EmptyRequest();
        for (uint256 i = 0; i < payments.length; ++i) {
            _pay(payments[i]);
        }
    }

    /// @notice Carries out one verified payment.
    function payOne(SvcPayment calldata payment) external onlyForwarder {
        _pay(payment);
    }

    /// @notice Carries out one verified immediate payment that `signer` signed, once this account lets `signer` pay
    /// (`canPay`): the forwarder's packed payments leave that check to the account, which saves a call, and pass the
    /// payment's fields as they are rather than a `SvcPayment`.
    function payFor(address signer, bytes32 id, bytes32 groupID, address token, address recipient, uint256 amount)
        external
        onlyForwarder
    {
        if (!canPay(signer)) revert SignerNotAuthorised(signer, address(this));
        if (recipient == address(0)) revert InvalidRecipient(id);
        _transfer(token, recipient, amount);
        emit PaymentExecuted(id, groupID, recipient, token, amount);
    }

    /// @notice Registers the pay schedule that `signer` signed, verified by the forwarder (which checked `canPay`).
    function registerSchedule(address signer, SvcPaySchedule calldata schedule) external onlyForwarder {
        _registerSchedule(signer, schedule);
    }

    /// @notice Cancels schedules, for good, for the forwarder's operators (the service cancels on a team's request, and
    /// when a payee is removed or blocked). A schedule already canceled is left as it is.
    function cancelSchedules(bytes32[] calldata ids) external onlyForwarder {
        if (ids.length == 0) revert EmptyRequest();
        for (uint256 i = 0; i < ids.length; ++i) {
            _cancelSchedule(ids[i]);
        }
    }

    /// @notice Grants roles from a verified manager request.
    function grantRoles(SvcRoleGrant[] calldata grants) external onlyForwarder {
        if (grants.length == 0) revert EmptyRequest();
        for (uint256 i = 0; i < grants.length; ++i) {
            bytes32 roleHash = keccak256(bytes(grants[i].role));
            if (roleHash != TEAM_ADMIN && roleHash != TEAM_FINANCE_ADMIN && roleHash != TEAM_VIEWER) {
                revert UnknownRole(grants[i].role);
            }
            hasRole[roleHash][grants[i].account] = true;
            emit RoleGranted(roleHash, grants[i].account, grants[i].role);
        }
    }

    /// @notice Ends the authority of removed members, for the forwarder's revoker: clears their roles and, for the
    /// owner, the ownership, and ends the pay schedules they signed (their `revocations` count moves on, so a role
    /// granted again later does not revive them). Revoke-only by construction: nothing here grants a role, names a new
    /// owner or pays.
    function revoke(address[] calldata members) external onlyForwarder {
        if (members.length == 0) revert EmptyRequest();
        for (uint256 i = 0; i < members.length; ++i) {
            address member = members[i];
            revocations[member] += 1;
            _revokeRole(TEAM_ADMIN, member);
            _revokeRole(TEAM_FINANCE_ADMIN, member);
            _revokeRole(TEAM_VIEWER, member);
            if (member != address(0) && member == owner) {
                owner = address(0);
                emit OwnerRevoked(member);
            }
        }
    }

    /// @notice Executes a registered intent; anyone may call it between `payAtTime` and its end of validity.
    function executeIntent(bytes32 id) external {
        Intent storage intent = intents[id];
        if (intent.state == IntentState.None) revert IntentNotFound(id);
        if (intent.state == IntentState.Executed) revert IntentAlreadyExecuted(id);
        if (block.timestamp < intent.payAtTime) revert IntentNotDue(id, intent.payAtTime, block.timestamp);
        if (block.timestamp > intent.validUntil) revert IntentValidityElapsed(id, intent.validUntil, block.timestamp);
        intent.state = IntentState.Executed;
        _transfer(intent.token, intent.recipient, intent.amount);
        emit IntentExecuted(id, intent.groupID, intent.recipient, intent.token, intent.amount);
    }

    function _pay(SvcPayment calldata payment) private {
        if (payment.recipient == address(0)) revert InvalidRecipient(payment.id);
        if (payment.payType == PAY_IMMEDIATE) {
            _transfer(payment.token, payment.recipient, payment.amount);
            emit PaymentExecuted(payment.id, payment.groupID, payment.recipient, payment.token, payment.amount);
        } else if (payment.payType == PAY_INTENT) {
            if (intents[payment.id].state != IntentState.None) revert IntentAlreadyRegistered(payment.id);
            // Bounded so the window fits the packed uint64 fields and `validMinutes * 60` cannot overflow.
            if (payment.payAtTime > type(uint40).max || payment.validMinutes > type(uint32).max) {
                revert InvalidIntentWindow(payment.id);
            }
            uint256 validUntil = payment.payAtTime + payment.validMinutes * 60;
            intents[payment.id] = Intent({
                groupID: payment.groupID,
                token: payment.token,
                recipient: payment.recipient,
                amount: payment.amount,
                payAtTime: uint64(payment.payAtTime),
                validUntil: uint64(validUntil),
                state: IntentState.Registered
            });
            emit IntentRegistered(
                payment.id,
                payment.groupID,
                payment.recipient,
                payment.token,
                payment.amount,
                payment.payAtTime,
                validUntil
            );
        } else if (payment.payType == PAY_ESCROW) {
            address escrow = ISvcForwarderEscrow(forwarder).escrow();
            if (payment.recipient != escrow || payment.data.length != 32) revert InvalidEscrowPayment(payment.id);
            bytes32 claimId = abi.decode(payment.data, (bytes32));
            _requireBalance(payment.token, payment.amount);
            if (!IERC20(payment.token).approve(escrow, payment.amount)) {
                revert TransferFailed(payment.token, escrow, payment.amount);
            }
            ISvcEscrowDeposit(escrow).deposit(claimId, payment.token, payment.amount, payment.id);
            emit PaymentEscrowed(payment.id, payment.groupID, claimId, payment.token, payment.amount);
        } else {
            revert UnknownPayType(payment.id, payment.payType);
        }
    }

    function _revokeRole(bytes32 roleHash, address member) private {
        if (!hasRole[roleHash][member]) return;
        hasRole[roleHash][member] = false;
        emit RoleRevoked(roleHash, member);
    }

    function _requireBalance(address token, uint256 amount) private view {
        uint256 balance = IERC20(token).balanceOf(address(this));
        if (balance < amount) revert InsufficientBalance(token, balance, amount);
    }

    function _transfer(address token, address to, uint256 amount) internal override {
        bytes4 selector = IERC20.transfer.selector;
        bool ok;
        // `token.transfer(to, amount)`, which succeeded when it did not revert and answered true, or nothing from a
        // contract (as OpenZeppelin's `SafeERC20`: a call to an address without code answers nothing too).
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, selector)
            mstore(add(m, 0x04), to)
            mstore(add(m, 0x24), amount)
            ok := call(gas(), token, 0, m, 0x44, 0, 0x20)
            let size := returndatasize()
            switch size
            case 0 { ok := and(ok, gt(extcodesize(token), 0)) }
            default { ok := and(ok, and(gt(size, 31), eq(mload(0), 1))) }
        }
        if (!ok) {
            // The balance is read only when the transfer failed, to name why.
            if (token.code.length > 0) _requireBalance(token, amount);
            revert TransferFailed(token, to, amount);
        }
    }
}

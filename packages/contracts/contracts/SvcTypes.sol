// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @notice One payment as signed (EIP-712 type `SvcPayment`).
struct SvcPayment {
    bytes32 id;
    bytes32 groupID;
    uint256 payAtTime;
    uint256 validMinutes;
    uint256 payType;
    address token;
    address recipient;
    uint256 amount;
    bytes data;
}

/// @notice One role grant as signed (EIP-712 type `SvcRoleGrant`).
struct SvcRoleGrant {
    string role;
    address account;
}

/// @notice One payee of a pay schedule as signed (EIP-712 type `SvcSchedulePayee`): paid `amount` each instalment.
struct SvcSchedulePayee {
    address recipient;
    uint256 amount;
}

/// @notice A pay schedule as signed (EIP-712 type `SvcPaySchedule`): `count` instalments, the first due at
/// `firstPayAt` (unix seconds), then one each `interval` ("weekly", "biweekly" or "monthly": the day of the month
/// kept, clamped to the month's last day), each payable from its due time until `validMinutes` later.
struct SvcPaySchedule {
    bytes32 id;
    address token;
    uint256 firstPayAt;
    string interval;
    uint256 count;
    uint256 validMinutes;
    SvcSchedulePayee[] payees;
}

/// @notice The minimal ERC-20 surface the accounts and the escrow use.
interface IERC20 {
    function balanceOf(address account) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

/// @notice Errors shared by the suite, so a revert decodes the same wherever it is raised.
interface SvcErrors {
    error RequestExpired(uint256 expires, uint256 timestamp);
    error SaltReplayed(uint256 salt);
    error InvalidSignature();
    error SignerNotAuthorised(address signer, address account);
    error UnknownAccount(address account);
    error EmptyRequest();
    error InsufficientBalance(address token, uint256 balance, uint256 amount);
    error TransferFailed(address token, address to, uint256 amount);
    error UnknownPayType(bytes32 id, uint256 payType);
    error InvalidEscrowPayment(bytes32 id);
    error InvalidRecipient(bytes32 id);
    error InvalidIntentWindow(bytes32 id);
    error IntentAlreadyRegistered(bytes32 id);
    error IntentNotFound(bytes32 id);
    error IntentNotDue(bytes32 id, uint256 payAtTime, uint256 timestamp);
    error IntentValidityElapsed(bytes32 id, uint256 validUntil, uint256 timestamp);
    error IntentAlreadyExecuted(bytes32 id);
    error UnknownRole(string role);
    error NotForwarder(address caller);
    error NotAdmin(address caller);
    error NotOperator(address caller);
    error NothingToRelease(bytes32 claimId, address token);
    error InvalidSchedule(bytes32 id);
    error ScheduleAlreadyRegistered(bytes32 id);
    error ScheduleNotFound(bytes32 id);
    error ScheduleNotActive(bytes32 id);
    error InstalmentNotFound(bytes32 id, uint256 n);
    error InstalmentNotDue(bytes32 id, uint256 n, uint256 dueAt, uint256 timestamp);
    error InstalmentValidityElapsed(bytes32 id, uint256 n, uint256 validUntil, uint256 timestamp);
    error InstalmentAlreadyPaid(bytes32 id, uint256 n);
}

// The version of the suite's contracts, which each reports as `CONTRACTS_VERSION`: 2 made the service's powers a
// role of every relayer key (`SvcOperated`); 3 added the forwarder's `executeEach` (many signed requests in one
// transaction, each on its own); 4 added its packed immediate payments (`executePaymentPacked`, `executePacked`); 5
// added pay schedules (`executeSchedule`, the account's `executeInstalment`, the operators' `cancelSchedules`).
// A server refuses a suite of a version it does not know.
uint256 constant SVC_CONTRACTS_VERSION = 5;

/// @title SvcOperated
/// @notice The service's operators: the relayer keys of its pool, any number of them, named by the admin (the account
/// that deployed the suite). An operator may do what only the service may (end a removed member's authority, release
/// an e-mail claim), and nothing else; the admin only names operators.
abstract contract SvcOperated is SvcErrors {
    uint256 public constant CONTRACTS_VERSION = SVC_CONTRACTS_VERSION;
    address public immutable admin;
    mapping(address operator => bool) public isOperator;

    event OperatorSet(address indexed operator, bool enabled);

    constructor(address admin_) {
        admin = admin_;
    }

    /// @notice Makes `operators` operators (`enabled`) or no longer; the admin only.
    function setOperators(address[] calldata operators, bool enabled) external {
        if (msg.sender != admin) revert NotAdmin(msg.sender);
        for (uint256 i = 0; i < operators.length; ++i) {
            isOperator[operators[i]] = enabled;
            emit OperatorSet(operators[i], enabled);
        }
    }

    modifier onlyOperator() {
        if (!isOperator[msg.sender]) revert NotOperator(msg.sender);
        _;
    }
}

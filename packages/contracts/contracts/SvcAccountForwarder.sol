// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {SvcAccount} from "./SvcAccount.sol";
import {SvcOperated, SvcPaySchedule, SvcPayment, SvcRoleGrant} from "./SvcTypes.sol";

/// @notice A batch of payments as signed (EIP-712 `CreatePaymentsForwardRequest`, `data` is `SvcPaymentsRequest`).
struct PaymentsForwardRequest {
    address from;
    address to;
    uint256 salt;
    uint256 expires;
    SvcPayment[] payments;
}

/// @notice One instant payment as signed (EIP-712 `CreatePaymentForwardRequest`).
struct PaymentForwardRequest {
    address from;
    address to;
    uint256 salt;
    uint256 expires;
    SvcPayment data;
}

/// @notice A pay schedule as signed (EIP-712 `CreatePayScheduleForwardRequest`).
struct ScheduleForwardRequest {
    address from;
    address to;
    uint256 salt;
    uint256 expires;
    SvcPaySchedule data;
}

/// @notice Manager role grants as signed (EIP-712 `SetRolesForwardRequest`).
struct RolesForwardRequest {
    address from;
    address to;
    uint256 salt;
    uint256 expires;
    SvcRoleGrant[] data;
}

/// @notice One request of `executeEach`: the calldata of `executePayment`, `executePayments`, `executeRoles`,
/// `executeSchedule` or `executeInstalment`, and the most gas it may use, so that one request cannot spend what the
/// others need.
struct EachCall {
    bytes data;
    uint256 gas;
}

/// @notice What became of one request of `executeEach`: whether it executed, the gas it used, and why it reverted.
struct EachResult {
    bool ok;
    uint256 gasUsed;
    bytes reason;
}

/// @notice ERC-1271, so smart-contract wallets may sign too.
interface IERC1271 {
    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4);
}

/// @title SvcAccountForwarder
/// @notice Verifies the EIP-712 requests the svc domain builds and calls the svc account they act on. A request
/// executes when its signer is authorised for the account, its salt has never been used on this forwarder and it has
/// not expired. Anyone may relay; the relayer pays the gas and gains no power from it. The service's operators (its
/// relayer keys) may also end a removed member's authority (`revoke`).
contract SvcAccountForwarder is SvcOperated {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 internal constant NAME_HASH = keccak256("SvcAccountForwarder");
    bytes32 internal constant VERSION_HASH = keccak256("1.0.0");

    string internal constant PAYMENT_TYPE =
        "SvcPayment(bytes32 id,bytes32 groupID,uint256 payAtTime,uint256 validMinutes,uint256 payType,address token,address recipient,uint256 amount,bytes data)";
    // Immutable rather than constant: the compiler folds the hash of one literal but would hash a concatenation on
    // every read. The getters are the same.
    bytes32 public immutable PAYMENT_TYPEHASH = keccak256(bytes(PAYMENT_TYPE));
    bytes32 public immutable PAYMENTS_REQUEST_TYPEHASH =
        keccak256(abi.encodePacked("SvcPaymentsRequest(SvcPayment[] payments)", PAYMENT_TYPE));
    bytes32 public immutable CREATE_PAYMENTS_TYPEHASH = keccak256(
        abi.encodePacked(
            "CreatePaymentsForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPaymentsRequest data)",
            PAYMENT_TYPE,
            "SvcPaymentsRequest(SvcPayment[] payments)"
        )
    );
    bytes32 public immutable CREATE_PAYMENT_TYPEHASH = keccak256(
        abi.encodePacked(
            "CreatePaymentForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPayment data)",
            PAYMENT_TYPE
        )
    );
    string internal constant SCHEDULE_PAYEE_TYPE = "SvcSchedulePayee(address recipient,uint256 amount)";
    string internal constant SCHEDULE_TYPE =
        "SvcPaySchedule(bytes32 id,address token,uint256 firstPayAt,string interval,uint256 count,uint256 validMinutes,SvcSchedulePayee[] payees)";
    bytes32 public immutable SCHEDULE_PAYEE_TYPEHASH = keccak256(bytes(SCHEDULE_PAYEE_TYPE));
    bytes32 public immutable SCHEDULE_TYPEHASH = keccak256(abi.encodePacked(SCHEDULE_TYPE, SCHEDULE_PAYEE_TYPE));
    bytes32 public immutable CREATE_SCHEDULE_TYPEHASH = keccak256(
        abi.encodePacked(
            "CreatePayScheduleForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPaySchedule data)",
            SCHEDULE_TYPE,
            SCHEDULE_PAYEE_TYPE
        )
    );
    bytes32 public constant ROLE_GRANT_TYPEHASH = keccak256("SvcRoleGrant(string role,address account)");
    bytes32 public constant SET_ROLES_TYPEHASH = keccak256(
        "SetRolesForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcRoleGrant[] data)SvcRoleGrant(string role,address account)"
    );

    /// @notice The kinds of request, as reported in `RequestExecuted`.
    uint8 public constant KIND_PAYMENTS = 1;
    uint8 public constant KIND_PAYMENT = 2;
    uint8 public constant KIND_ROLES = 3;
    uint8 public constant KIND_SCHEDULE = 4;

    /// @notice Where payments to an e-mail recipient without an account go.
    address public immutable escrow;
    /// @notice Used salts, 256 to a word (Permit2's unordered nonces): salt `s` is bit `s & 255` of word `s >> 8`.
    /// The service hands out the salts of a word in turn, so requests of one word share one storage slot.
    mapping(uint256 word => uint256 bits) public saltWords;
    bytes32 private immutable cachedDomainSeparator;
    uint256 private immutable cachedChainId;
    mapping(address account => bool) public isAccount;

    event AccountCreated(address indexed account, address indexed owner, bytes32 salt);
    event RequestExecuted(
        bytes32 indexed digest, address indexed account, address indexed signer, uint256 salt, uint8 kind
    );
    /// @notice A request of `executeEach` or `executePacked` (its place in the call) that reverted: it changed nothing.
    event RequestFailed(uint256 index, bytes reason);

    error UnknownCall(bytes4 selector);
    /// @notice Packed requests whose length is not a whole number of requests of their layout.
    error InvalidPackedRequest(uint256 length);
    /// @notice A packed payment of a kind other than `KIND_PAYMENT` or `KIND_PAYMENTS`.
    error UnknownPackedKind(uint8 kind);

    /// @notice The length of one packed payment (`executePaymentPacked`).
    uint256 public constant PACKED_PAYMENT_LENGTH = 263;
    /// @notice The length of one request of `executePacked`: its gas cap (3 bytes), then the packed payment.
    uint256 internal constant PACKED_CALL_LENGTH = 266;

    constructor(address escrow_, address admin_) SvcOperated(admin_) {
        escrow = escrow_;
        cachedChainId = block.chainid;
        cachedDomainSeparator = _domainSeparator();
    }

    /// @notice Whether a request with `salt` was executed here.
    function saltUsed(uint256 salt) public view returns (bool) {
        return saltWords[salt >> 8] & (1 << (salt & 0xff)) != 0;
    }

    /// @notice Deploys an account owned by `owner` at an address fixed by (owner, salt); anyone may pay the gas.
    function createAccount(address owner, bytes32 salt) external returns (address account) {
        account = address(new SvcAccount{salt: keccak256(abi.encode(owner, salt))}(address(this), owner));
        isAccount[account] = true;
        emit AccountCreated(account, owner, salt);
    }

    /// @notice The address `createAccount(owner, salt)` deploys to.
    function accountAddress(address owner, bytes32 salt) external view returns (address) {
        bytes32 codeHash =
            keccak256(abi.encodePacked(type(SvcAccount).creationCode, abi.encode(address(this), owner)));
        bytes32 hash = keccak256(abi.encodePacked(bytes1(0xff), address(this), keccak256(abi.encode(owner, salt)), codeHash));
        return address(uint160(uint256(hash)));
    }

    /// @notice The EIP-712 domain separator: name "SvcAccountForwarder", version "1.0.0", this chain and contract.
    function domainSeparator() public view returns (bytes32) {
        return block.chainid == cachedChainId ? cachedDomainSeparator : _domainSeparator();
    }

    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    /// @notice The digest a wallet signs for a batch of payments.
    function digestPayments(PaymentsForwardRequest calldata request) public view returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](request.payments.length);
        for (uint256 i = 0; i < hashes.length; ++i) {
            hashes[i] = _hashPayment(request.payments[i]);
        }
        bytes32 dataHash = keccak256(abi.encode(PAYMENTS_REQUEST_TYPEHASH, keccak256(abi.encodePacked(hashes))));
        return _digest(
            keccak256(
                abi.encode(CREATE_PAYMENTS_TYPEHASH, request.from, request.to, request.salt, request.expires, dataHash)
            )
        );
    }

    /// @notice The digest a wallet signs for one instant payment.
    function digestPayment(PaymentForwardRequest calldata request) public view returns (bytes32) {
        return _digest(
            keccak256(
                abi.encode(
                    CREATE_PAYMENT_TYPEHASH,
                    request.from,
                    request.to,
                    request.salt,
                    request.expires,
                    _hashPayment(request.data)
                )
            )
        );
    }

    /// @notice The digest a wallet signs for manager role grants.
    function digestRoles(RolesForwardRequest calldata request) public view returns (bytes32) {
        bytes32[] memory hashes = new bytes32[](request.data.length);
        for (uint256 i = 0; i < hashes.length; ++i) {
            hashes[i] = keccak256(
                abi.encode(ROLE_GRANT_TYPEHASH, keccak256(bytes(request.data[i].role)), request.data[i].account)
            );
        }
        return _digest(
            keccak256(
                abi.encode(
                    SET_ROLES_TYPEHASH,
                    request.from,
                    request.to,
                    request.salt,
                    request.expires,
                    keccak256(abi.encodePacked(hashes))
                )
            )
        );
    }

    /// @notice Verifies and executes a signed batch of payments, atomically.
    function executePayments(PaymentsForwardRequest calldata request, bytes calldata signature) external {
        bytes32 digest = digestPayments(request);
        _authorise(request.from, request.to, request.salt, request.expires, digest, signature, false);
        emit RequestExecuted(digest, request.to, request.from, request.salt, KIND_PAYMENTS);
        SvcAccount(request.to).pay(request.payments);
    }

    /// @notice Verifies and executes one signed instant payment.
    function executePayment(PaymentForwardRequest calldata request, bytes calldata signature) external {
        bytes32 digest = digestPayment(request);
        _authorise(request.from, request.to, request.salt, request.expires, digest, signature, false);
        emit RequestExecuted(digest, request.to, request.from, request.salt, KIND_PAYMENT);
        SvcAccount(request.to).payOne(request.data);
    }

    /// @notice The digest a wallet signs for a pay schedule.
    function digestSchedule(ScheduleForwardRequest calldata request) public view returns (bytes32) {
        SvcPaySchedule calldata schedule = request.data;
        bytes32[] memory hashes = new bytes32[](schedule.payees.length);
        for (uint256 i = 0; i < hashes.length; ++i) {
            hashes[i] =
                keccak256(abi.encode(SCHEDULE_PAYEE_TYPEHASH, schedule.payees[i].recipient, schedule.payees[i].amount));
        }
        bytes32 scheduleHash = keccak256(
            abi.encode(
                SCHEDULE_TYPEHASH,
                schedule.id,
                schedule.token,
                schedule.firstPayAt,
                keccak256(bytes(schedule.interval)),
                schedule.count,
                schedule.validMinutes,
                keccak256(abi.encodePacked(hashes))
            )
        );
        return _digest(
            keccak256(
                abi.encode(
                    CREATE_SCHEDULE_TYPEHASH, request.from, request.to, request.salt, request.expires, scheduleHash
                )
            )
        );
    }

    /// @notice Verifies a signed pay schedule and registers it on its account, signed by `from` once for all of its
    /// instalments.
    function executeSchedule(ScheduleForwardRequest calldata request, bytes calldata signature) external {
        bytes32 digest = digestSchedule(request);
        _authorise(request.from, request.to, request.salt, request.expires, digest, signature, false);
        emit RequestExecuted(digest, request.to, request.from, request.salt, KIND_SCHEDULE);
        SvcAccount(request.to).registerSchedule(request.from, request.data);
    }

    /// @notice Executes instalment `n` of schedule `id` on `account` (which anyone may do on the account itself), so
    /// that `executeEach` may carry due instalments beside signed requests.
    function executeInstalment(address account, bytes32 id, uint256 n) external {
        if (!isAccount[account]) revert UnknownAccount(account);
        SvcAccount(account).executeInstalment(id, n);
    }

    /// @notice Verifies and executes signed manager role grants.
    function executeRoles(RolesForwardRequest calldata request, bytes calldata signature) external {
        bytes32 digest = digestRoles(request);
        _authorise(request.from, request.to, request.salt, request.expires, digest, signature, true);
        emit RequestExecuted(digest, request.to, request.from, request.salt, KIND_ROLES);
        SvcAccount(request.to).grantRoles(request.data);
    }

    /// @notice Executes signed requests each on its own, as the relayer gathers them into one transaction: one that
    /// reverts (a spent salt, a balance too low) changes nothing and is reported by `RequestFailed`, and the others go
    /// on. Each is verified as when it is sent alone, so anyone may call this, as each request. Answers what became of
    /// each (read by simulating the call first: the relayer sends only those that execute).
    function executeEach(EachCall[] calldata calls) external returns (EachResult[] memory results) {
        results = new EachResult[](calls.length);
        for (uint256 i = 0; i < calls.length; ++i) {
            bytes calldata data = calls[i].data;
            bytes4 selector = bytes4(data[:4]);
            if (
                selector != this.executePayment.selector && selector != this.executePayments.selector
                    && selector != this.executeRoles.selector && selector != this.executeSchedule.selector
                    && selector != this.executeInstalment.selector
            ) revert UnknownCall(selector);
            uint256 before = gasleft();
            (bool ok, bytes memory reason) = address(this).delegatecall{gas: calls[i].gas}(data);
            results[i] = EachResult({ok: ok, gasUsed: before - gasleft(), reason: reason});
            if (!ok) emit RequestFailed(i, reason);
        }
    }

    /// @notice Verifies and executes one signed immediate payment, packed: what `executePayment` takes, or
    /// `executePayments` with one payment, when the payment is immediate (`payType` 1), due at once (`payAtTime` and
    /// `validMinutes` 0) and without `data`, and the signature is 65 bytes. It is signed as that request (its kind says
    /// which: `KIND_PAYMENT`, `CreatePaymentForwardRequest`, or `KIND_PAYMENTS`, `CreatePaymentsForwardRequest`),
    /// verified as it is and logs the same; only the calldata is shorter (263 bytes for 676 or 740, most of them zero)
    /// and cheaper to read. The layout, in bytes: the kind 1, `from` 20, `to` 20, `salt` 32, `expires` 5, the payment's
    /// `id` 32, `groupID` 32, `token` 20, `recipient` 20 and `amount` 16, and the signature's r 32, s 32 and v 1; each
    /// field big-endian, where a shorter field holds the same value.
    function executePaymentPacked(bytes calldata packed) external {
        if (packed.length != PACKED_PAYMENT_LENGTH) revert InvalidPackedRequest(packed.length);
        (uint8 kind, address from, address to, uint256 salt, uint256 expires, bytes32 digest) = _packedDigest(packed);
        // What `_authorise` checks, in its order, with the key's signature read without Solidity's copies (one that
        // recovers no key is asked of the signer as ERC-1271, as there); the account checks that `from` may pay.
        if (!isAccount[to]) revert UnknownAccount(to);
        if (block.timestamp > expires) revert RequestExpired(expires, block.timestamp);
        uint256 bits = saltWords[salt >> 8];
        uint256 bit = 1 << (salt & 0xff);
        if (bits & bit != 0) revert SaltReplayed(salt);
        if (!_recoversPacked(from, digest, packed) && !_validSignature(from, digest, packed[198:])) {
            revert InvalidSignature();
        }
        saltWords[salt >> 8] = bits | bit;
        emit RequestExecuted(digest, to, from, salt, kind);
        _payForPacked(from, to, packed);
    }

    /// @notice Executes packed immediate payments (`executePaymentPacked`) each on its own, as `executeEach` does:
    /// `requests` is, for each, the most gas it may use (3 bytes, big-endian), then its 263 packed bytes. One that
    /// reverts changes nothing and is reported by `RequestFailed`; the others go on. Answers what became of each.
    function executePacked(bytes calldata requests) external returns (EachResult[] memory) {
        uint256 count = requests.length / PACKED_CALL_LENGTH;
        if (count == 0 || requests.length % PACKED_CALL_LENGTH != 0) revert InvalidPackedRequest(requests.length);
        // One call's calldata, each request copied in turn over the previous one.
        bytes memory input = abi.encodeCall(this.executePaymentPacked, (requests[3:PACKED_CALL_LENGTH]));
        bytes32 failed = RequestFailed.selector;
        // The answer is written as it comes, ABI-encoded (`EachResult[]`: the array's offset and length, each
        // result's offset, then each result: ok, gasUsed, the reason's offset, its length and its bytes), and
        // returned from here: Solidity's encoder would spend more than the loop itself.
        assembly {
            let out := mload(0x40)
            mstore(out, 0x20)
            mstore(add(out, 0x20), count)
            let heads := add(out, 0x40)
            let tail := add(heads, shl(5, count))
            for { let i := 0 } lt(i, count) { i := add(i, 1) } {
                let at := add(requests.offset, mul(i, PACKED_CALL_LENGTH))
                calldatacopy(add(input, 0x64), add(at, 3), PACKED_PAYMENT_LENGTH)
                let before := gas()
                let ok := delegatecall(shr(232, calldataload(at)), address(), add(input, 0x20), mload(input), 0, 0)
                let used := sub(before, gas())
                let size := returndatasize()
                let padded := and(add(size, 31), not(31))
                mstore(add(heads, shl(5, i)), sub(tail, heads))
                mstore(add(tail, 0x60), size)
                returndatacopy(add(tail, 0x80), 0, size)
                mstore(add(add(tail, 0x80), size), 0)
                if iszero(ok) {
                    // `RequestFailed(i, reason)`, its data laid over the result's first words for a moment.
                    mstore(add(tail, 0x20), i)
                    mstore(add(tail, 0x40), 0x40)
                    log1(add(tail, 0x20), add(0x60, padded), failed)
                }
                mstore(tail, ok)
                mstore(add(tail, 0x20), used)
                mstore(add(tail, 0x40), 0x60)
                tail := add(tail, add(0x80, padded))
            }
            return(out, sub(tail, out))
        }
    }

    /// @notice Ends the on-chain authority of removed members on `account` (their roles, and ownership when one is
    /// the owner); an operator only. It cannot grant, replace the owner or pay: removal is all it can do.
    function revoke(address account, address[] calldata members) external onlyOperator {
        if (!isAccount[account]) revert UnknownAccount(account);
        SvcAccount(account).revoke(members);
    }

    /// @notice Cancels pay schedules of `account`, for good; an operator only (the service cancels at a team's request
    /// and when a payee is removed or blocked). It cannot pay or register anything.
    function cancelSchedules(address account, bytes32[] calldata ids) external onlyOperator {
        if (!isAccount[account]) revert UnknownAccount(account);
        SvcAccount(account).cancelSchedules(ids);
    }

    function _authorise(
        address from,
        address to,
        uint256 salt,
        uint256 expires,
        bytes32 digest,
        bytes calldata signature,
        bool manage
    ) private {
        if (!isAccount[to]) revert UnknownAccount(to);
        if (block.timestamp > expires) revert RequestExpired(expires, block.timestamp);
        uint256 bits = saltWords[salt >> 8];
        uint256 bit = 1 << (salt & 0xff);
        if (bits & bit != 0) revert SaltReplayed(salt);
        if (!_validSignature(from, digest, signature)) revert InvalidSignature();
        bool allowed = manage ? SvcAccount(to).canManage(from) : SvcAccount(to).canPay(from);
        if (!allowed) revert SignerNotAuthorised(from, to);
        saltWords[salt >> 8] = bits | bit;
    }

    /// @dev The fields of a packed payment that `_authorise` checks, and its digest (`digestPayment`'s, or
    /// `digestPayments`' for a batch of that one payment), hashed from the fields as they lie in calldata. The scratch
    /// memory past the free pointer is written and left unallocated.
    function _packedDigest(bytes calldata packed)
        private
        view
        returns (uint8 kind, address from, address to, uint256 salt, uint256 expires, bytes32 digest)
    {
        kind = uint8(packed[0]);
        bytes32 data = _packedPaymentHash(packed);
        bytes32 requestTypehash;
        if (kind == KIND_PAYMENT) {
            requestTypehash = CREATE_PAYMENT_TYPEHASH;
        } else if (kind == KIND_PAYMENTS) {
            requestTypehash = CREATE_PAYMENTS_TYPEHASH;
            bytes32 listTypehash = PAYMENTS_REQUEST_TYPEHASH;
            // `SvcPaymentsRequest` of the one payment: its list's hash is the hash of its one hash.
            assembly ("memory-safe") {
                mstore(0x00, data)
                mstore(0x20, keccak256(0x00, 0x20))
                mstore(0x00, listTypehash)
                data := keccak256(0x00, 0x40)
            }
        } else {
            revert UnknownPackedKind(kind);
        }
        bytes32 domain = domainSeparator();
        assembly ("memory-safe") {
            let at := packed.offset
            from := shr(96, calldataload(add(at, 1)))
            to := shr(96, calldataload(add(at, 21)))
            salt := calldataload(add(at, 41))
            expires := shr(216, calldataload(add(at, 73)))
            let m := mload(0x40)
            mstore(m, requestTypehash)
            mstore(add(m, 0x20), from)
            mstore(add(m, 0x40), to)
            mstore(add(m, 0x60), salt)
            mstore(add(m, 0x80), expires)
            mstore(add(m, 0xa0), data)
            let structHash := keccak256(m, 0xc0)
            mstore(m, shl(240, 0x1901))
            mstore(add(m, 0x02), domain)
            mstore(add(m, 0x22), structHash)
            digest := keccak256(m, 0x42)
        }
    }

    /// @dev The packed payment's `SvcPayment` hash (`_hashPayment`'s): `payAtTime` and `validMinutes` 0, `payType` 1,
    /// no `data`.
    function _packedPaymentHash(bytes calldata packed) private view returns (bytes32 paymentHash) {
        bytes32 paymentTypehash = PAYMENT_TYPEHASH;
        bytes32 emptyHash = keccak256("");
        assembly ("memory-safe") {
            let at := packed.offset
            let m := mload(0x40)
            mstore(m, paymentTypehash)
            mstore(add(m, 0x20), calldataload(add(at, 78))) // id
            mstore(add(m, 0x40), calldataload(add(at, 110))) // groupID
            mstore(add(m, 0x60), 0) // payAtTime
            mstore(add(m, 0x80), 0) // validMinutes
            mstore(add(m, 0xa0), 1) // payType: immediate
            mstore(add(m, 0xc0), shr(96, calldataload(add(at, 142)))) // token
            mstore(add(m, 0xe0), shr(96, calldataload(add(at, 162)))) // recipient
            mstore(add(m, 0x100), shr(128, calldataload(add(at, 182)))) // amount
            mstore(add(m, 0x120), emptyHash) // data
            paymentHash := keccak256(m, 0x140)
        }
    }

    /// @dev Whether the packed signature (r, s and v from byte 198) is `from`'s key's on `digest`, as `_recovers`
    /// decides: s in the lower half of the curve order, v 27 or 28 (or 0 or 1), and the key recovered is `from`.
    function _recoversPacked(address from, bytes32 digest, bytes calldata packed) private view returns (bool ok) {
        assembly ("memory-safe") {
            let at := packed.offset
            let r := calldataload(add(at, 198))
            let s := calldataload(add(at, 230))
            let v := shr(248, calldataload(add(at, 262)))
            if lt(v, 27) { v := add(v, 27) }
            let lowS := iszero(gt(s, 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0))
            if and(lowS, or(eq(v, 27), eq(v, 28))) {
                let m := mload(0x40)
                mstore(m, digest)
                mstore(add(m, 0x20), v)
                mstore(add(m, 0x40), r)
                mstore(add(m, 0x60), s)
                // The precompile answers nothing for a signature that recovers no key.
                if staticcall(gas(), 1, m, 0x80, m, 0x20) { ok := and(eq(returndatasize(), 0x20), eq(mload(m), from)) }
            }
        }
    }

    /// @dev `SvcAccount(to).payFor(from, id, groupID, token, recipient, amount)` of the packed payment, encoded from
    /// its fields; a revert is passed on as it came.
    function _payForPacked(address from, address to, bytes calldata packed) private {
        bytes4 selector = SvcAccount.payFor.selector;
        assembly ("memory-safe") {
            let at := packed.offset
            let m := mload(0x40)
            mstore(m, selector)
            mstore(add(m, 0x04), from)
            mstore(add(m, 0x24), calldataload(add(at, 78))) // id
            mstore(add(m, 0x44), calldataload(add(at, 110))) // groupID
            mstore(add(m, 0x64), shr(96, calldataload(add(at, 142)))) // token
            mstore(add(m, 0x84), shr(96, calldataload(add(at, 162)))) // recipient
            mstore(add(m, 0xa4), shr(128, calldataload(add(at, 182)))) // amount
            if iszero(call(gas(), to, 0, m, 0xc4, 0, 0)) {
                returndatacopy(m, 0, returndatasize())
                revert(m, returndatasize())
            }
        }
    }

    function _hashPayment(SvcPayment calldata payment) private view returns (bytes32) {
        return keccak256(
            abi.encode(
                PAYMENT_TYPEHASH,
                payment.id,
                payment.groupID,
                payment.payAtTime,
                payment.validMinutes,
                payment.payType,
                payment.token,
                payment.recipient,
                payment.amount,
                keccak256(payment.data)
            )
        );
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    /// @dev The key's signature first, then ERC-1271, as OpenZeppelin's `SignatureChecker`: a contract wallet has no
    /// key that recovers to its address, and the signer's code is read (a cold account, 2,600 gas) only when needed.
    function _validSignature(address signer, bytes32 digest, bytes calldata signature) private view returns (bool) {
        if (_recovers(signer, digest, signature)) return true;
        if (signer.code.length == 0) return false;
        (bool ok, bytes memory result) =
            signer.staticcall(abi.encodeCall(IERC1271.isValidSignature, (digest, signature)));
        return ok && result.length >= 32 && abi.decode(result, (bytes4)) == IERC1271.isValidSignature.selector;
    }

    function _recovers(address signer, bytes32 digest, bytes calldata signature) private pure returns (bool) {
        if (signature.length != 65) return false;
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (v < 27) v += 27;
        // Reject malleable signatures (EIP-2): s in the lower half of the curve order.
        if (uint256(s) > 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0) return false;
        if (v != 27 && v != 28) return false;
        address recovered = ecrecover(digest, v, r, s);
        return recovered != address(0) && recovered == signer;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20, SvcOperated} from "./SvcTypes.sol";

/// @title SvcEscrow
/// @notice Holds payments to an e-mail recipient who has no account yet. A claim id is keccak256 of the lower-cased
/// e-mail; once the recipient has an account, the service (any of its operators) releases the claim to it.
contract SvcEscrow is SvcOperated {
    mapping(bytes32 claimId => mapping(address token => uint256)) public claimable;

    event EscrowDeposited(
        bytes32 indexed claimId, address indexed token, address indexed from, uint256 amount, bytes32 paymentId
    );
    event EscrowReleased(bytes32 indexed claimId, address indexed token, address indexed to, uint256 amount);

    constructor(address admin_) SvcOperated(admin_) {}

    /// @notice Pulls `amount` of `token` from the caller (who approved it) and records it under `claimId`.
    function deposit(bytes32 claimId, address token, uint256 amount, bytes32 paymentId) external {
        if (!IERC20(token).transferFrom(msg.sender, address(this), amount)) {
            revert TransferFailed(token, address(this), amount);
        }
        claimable[claimId][token] += amount;
        emit EscrowDeposited(claimId, token, msg.sender, amount, paymentId);
    }

    /// @notice Releases everything held under `claimId` in `token` to `to`; an operator only.
    function release(bytes32 claimId, address token, address to) external onlyOperator returns (uint256 amount) {
        amount = claimable[claimId][token];
        if (amount == 0) revert NothingToRelease(claimId, token);
        claimable[claimId][token] = 0;
        if (!IERC20(token).transfer(to, amount)) revert TransferFailed(token, to, amount);
        emit EscrowReleased(claimId, token, to, amount);
    }
}

// SPDX-License-Identifier: MIT
// NOT AUDITED. Do not hold real money with these contracts until they have been reviewed.
pragma solidity ^0.8.20;

/// The two ERC-20 calls a sweep needs. USDT on Ethereum returns nothing from transfer, so the
/// call is made at a low level and an empty answer counts as success (as SafeERC20 does).
interface IERC20Balance {
    function balanceOf(address owner) external view returns (uint256);
}

/// One payment's deposit address, deployed only when it is swept. Its payout address is set
/// at creation and is part of the CREATE2 address itself: the address a customer paid can
/// only ever send its tokens to that payout address, whoever calls sweep.
contract Deposit {
    address public immutable payout;

    constructor(address payout_) {
        payout = payout_;
    }

    /// Sends this address's whole balance of `token` to the payout address; nothing when empty.
    function sweep(address token) external returns (uint256 amount) {
        amount = IERC20Balance(token).balanceOf(address(this));
        if (amount == 0) return 0;
        (bool ok, bytes memory answer) = token.call(abi.encodeWithSelector(0xa9059cbb, payout, amount));
        require(ok && (answer.length == 0 || abi.decode(answer, (bool))), "transfer failed");
    }
}

/// Computes deposit addresses and sweeps them. Anyone may call it (the operator's gas-only
/// wallet does): a sweep can only move a deposit's tokens to the payout address in its address.
contract DepositFactory {
    event Swept(address indexed deposit, address indexed token, address indexed payout, uint256 amount);

    struct Target {
        address payout;
        bytes32 salt;
        address token;
    }

    /// The deposit address for a payout address and a salt (one per payment), deployed or not.
    function addressOf(address payout, bytes32 salt) public view returns (address) {
        bytes32 code = keccak256(abi.encodePacked(type(Deposit).creationCode, abi.encode(payout)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, code)))));
    }

    /// Sweeps many deposits in one transaction, deploying each on its first sweep. A second
    /// sweep of the same deposit is harmless: it sends what arrived since, or nothing.
    function sweep(Target[] calldata targets) external {
        for (uint256 i = 0; i < targets.length; i++) {
            Target calldata t = targets[i];
            address deposit = addressOf(t.payout, t.salt);
            if (deposit.code.length == 0) new Deposit{salt: t.salt}(t.payout);
            uint256 amount = Deposit(deposit).sweep(t.token);
            if (amount > 0) emit Swept(deposit, t.token, t.payout, amount);
        }
    }
}

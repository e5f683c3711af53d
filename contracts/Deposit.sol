// SPDX-License-Identifier: MIT
// NOT AUDITED. Do not hold real money with these contracts until they have been reviewed.
pragma solidity ^0.8.20;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";

/// The one ERC-20 view a sweep needs. Transfers are made at a low level: USDT on Ethereum
/// returns nothing from transfer, so an empty answer counts as success (as SafeERC20 does).
interface IERC20Balance {
    function balanceOf(address owner) external view returns (uint256);
}

/// The code behind every deposit address. Each deposit is a minimal proxy (EIP-1167) to this,
/// deployed only on its first sweep, with its payout address appended to its own code: the
/// payout is part of the CREATE2 address, so the address a customer paid can only ever send
/// what it holds to that payout address, whoever calls sweep. A deposit that carries an
/// operator's fee has the fee address and the fee's fraction (numerator, denominator; two
/// bytes each) appended after the payout: fee = amount * numerator / denominator, rounded
/// down, goes to the fee address and the rest to the payout, both fixed by the address itself.
contract Deposit {
    /// This contract itself, which holds nothing and is never a deposit.
    address private immutable self = address(this);
    /// Gas forwarded to the payout address with a native sweep: a smart wallet's receive (a
    /// proxy, an event) fits; a payout that burns whatever it is given cannot take more.
    uint256 internal constant NATIVE_SWEEP_GAS = 50_000;

    /// Native coin sent to a deposit after its first sweep is accepted, and swept like a token.
    receive() external payable {}

    /// The payout address this deposit was created for, read from the deposit's own code.
    function payout() public view returns (address) {
        require(address(this) != self, "not a deposit");
        return address(bytes20(Clones.fetchCloneArgs(address(this))));
    }

    /// The fee address and fraction this deposit was created with (none: zeros).
    function fee() public view returns (address to, uint16 numerator, uint16 denominator) {
        require(address(this) != self, "not a deposit");
        (, to, numerator, denominator) = terms();
    }

    /// Its payout and fee, from its own code (one read): 20 bytes, or 44 with a fee.
    function terms() private view returns (address to, address feeTo, uint16 numerator, uint16 denominator) {
        bytes memory args = Clones.fetchCloneArgs(address(this));
        to = address(bytes20(args));
        if (args.length < 44) return (to, address(0), 0, 1);
        assembly {
            let word := mload(add(args, 52))
            feeTo := shr(96, word)
            numerator := and(shr(80, word), 0xffff)
            denominator := and(shr(64, word), 0xffff)
        }
    }

    /// Sends this deposit's whole balance of `token` (the zero address: the native coin): its
    /// fee to the fee address, the rest to its payout address; nothing when empty. Any token
    /// can be swept, listed by the service or not.
    function sweep(address token) external returns (uint256 amount) {
        require(address(this) != self, "not a deposit");
        amount = token == address(0) ? address(this).balance : IERC20Balance(token).balanceOf(address(this));
        if (amount == 0) return 0;
        (address to, address feeTo, uint16 numerator, uint16 denominator) = terms();
        uint256 cut = (amount * numerator) / denominator;
        if (cut > 0) send(token, feeTo, cut);
        send(token, to, amount - cut);
    }

    function send(address token, address to, uint256 amount) private {
        if (token == address(0)) {
            bool sent;
            // No answer copied: a payout's revert data, however long, costs nothing here.
            assembly { sent := call(NATIVE_SWEEP_GAS, to, amount, 0, 0, 0, 0) }
            require(sent, "native transfer failed");
            return;
        }
        (bool ok, bytes memory answer) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        // The token's own reason ("frozen", "Pausable: paused") is what the operator needs to read.
        if (!ok) assembly { revert(add(answer, 32), mload(answer)) }
        require(answer.length == 0 || abi.decode(answer, (bool)), "transfer refused");
    }
}

/// Computes deposit addresses and sweeps them. Anyone may call it (the operator's gas-only
/// wallet does): a sweep can only move a deposit's money to the payout address in its address.
contract DepositFactory {
    /// Gas forwarded to each target's sweep: a token transfer that deploys nothing takes 30-70k
    /// (USDT, USDC's proxy); a token (or payout) that burns whatever it is given fails alone,
    /// and what is left of the batch is still swept.
    uint256 internal constant TARGET_GAS = 150_000;
    /// A failed target's reason is kept to this many bytes: its revert data, however long, is
    /// neither copied nor logged past them.
    uint256 internal constant MAX_REASON = 256;

    event Swept(address indexed deposit, address indexed token, address indexed payout, uint256 amount);
    /// One deposit's sweep failed (its token froze the address, is paused, or the payout refuses
    /// the native coin): the others in the batch are swept all the same.
    event SweepFailed(address indexed deposit, address indexed token, bytes reason);

    struct Target {
        address payout;
        bytes32 salt;
        address token;
    }

    /// A deposit that carries the operator's fee: `feeNumerator / feeDenominator` of what it
    /// holds goes to `feeTo`, bound into its address as the payout is.
    struct FeeTarget {
        address payout;
        address feeTo;
        uint16 feeNumerator;
        uint16 feeDenominator;
        bytes32 salt;
        address token;
    }

    /// The code every deposit runs, deployed with the factory (the factory's first creation).
    address public immutable implementation;

    constructor() {
        implementation = address(new Deposit());
    }

    /// The deposit address for a payout address and a salt (one per payment), deployed or not.
    function addressOf(address payout, bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddressWithImmutableArgs(implementation, abi.encodePacked(payout), salt);
    }

    /// The deposit address of a payment that carries a fee: the fee address and fraction are
    /// part of it. With a zero numerator it is addressOf(payout, salt).
    function addressWithFee(address payout, address feeTo, uint16 feeNumerator, uint16 feeDenominator, bytes32 salt) public view returns (address) {
        return Clones.predictDeterministicAddressWithImmutableArgs(implementation, argsOf(payout, feeTo, feeNumerator, feeDenominator), salt);
    }

    function argsOf(address payout, address feeTo, uint16 feeNumerator, uint16 feeDenominator) private pure returns (bytes memory) {
        if (feeNumerator == 0) return abi.encodePacked(payout);
        require(feeTo != address(0) && feeNumerator <= feeDenominator, "bad fee");
        return abi.encodePacked(payout, feeTo, feeNumerator, feeDenominator);
    }

    /// Sweeps many deposits in one transaction, deploying each on its first sweep. A second
    /// sweep of the same deposit is harmless: it sends what arrived since, or nothing. A target
    /// that fails is told by SweepFailed and does not hold back the others.
    function sweep(Target[] calldata targets) external {
        for (uint256 i = 0; i < targets.length; i++) {
            Target calldata t = targets[i];
            sweepOne(t.payout, abi.encodePacked(t.payout), t.salt, t.token);
        }
    }

    /// As sweep, for deposits that may carry a fee (a zero numerator: none): the fee to its
    /// fee address, the rest to the payout, each deposit on its own.
    function sweepWithFees(FeeTarget[] calldata targets) external {
        for (uint256 i = 0; i < targets.length; i++) {
            FeeTarget calldata t = targets[i];
            sweepOne(t.payout, argsOf(t.payout, t.feeTo, t.feeNumerator, t.feeDenominator), t.salt, t.token);
        }
    }

    function sweepOne(address payout, bytes memory args, bytes32 salt, address token) private {
        address deposit = Clones.predictDeterministicAddressWithImmutableArgs(implementation, args, salt);
        if (deposit.code.length == 0) Clones.cloneDeterministicWithImmutableArgs(implementation, args, salt);
        (bool ok, uint256 amount, bytes memory reason) = callSweep(deposit, token);
        if (!ok) emit SweepFailed(deposit, token, reason);
        else if (amount > 0) emit Swept(deposit, token, payout, amount);
    }

    /// One deposit's sweep with at most TARGET_GAS, its answer copied only up to MAX_REASON bytes.
    function callSweep(address deposit, address token) private returns (bool ok, uint256 amount, bytes memory reason) {
        bytes4 selector = Deposit.sweep.selector;
        assembly {
            reason := mload(0x40)
            mstore(reason, selector)
            mstore(add(reason, 4), token)
            ok := call(TARGET_GAS, deposit, 0, reason, 36, 0, 0)
            let size := returndatasize()
            if gt(size, MAX_REASON) { size := MAX_REASON }
            mstore(reason, size)
            returndatacopy(add(reason, 32), 0, size)
            mstore(0x40, add(add(reason, 32), and(add(size, 31), not(31))))
            if and(ok, eq(size, 32)) { amount := mload(add(reason, 32)) }
        }
        if (ok) reason = "";
    }
}

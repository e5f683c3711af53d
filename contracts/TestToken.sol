// SPDX-License-Identifier: MIT
// For the local dev chain only: an ERC-20 anyone may mint, with the decimals of the token it
// stands in for (USDT has 18 on BNB Smart Chain, 6 on Ethereum), a freeze like USDT's and
// USDC's blacklists, so that tests can make one deposit's transfers fail, and an optional fee
// on transfer that its Transfer event does not show, so that tests can make the chain and the
// events disagree. The signing coins (USDC's EIP-3009 and EIP-2612, DAI's permit) are built on it
// in SignedTokens.sol; this one, as USDT, signs nothing.
pragma solidity ^0.8.20;

contract TestToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    mapping(address => bool) public frozen;
    /// Taken from each transfer, in hundredths of a percent; the Transfer event still says the full value.
    uint256 public feeBps;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(string memory name_, string memory symbol_, uint8 decimals_) {
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
    }

    function mint(address to, uint256 value) external {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }

    /// Anyone may freeze an address here (a dev token): its tokens can no longer move.
    function freeze(address who) external {
        frozen[who] = true;
    }

    function setFee(uint256 bps) external {
        require(bps <= 10000, "fee");
        feeBps = bps;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _move(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    function _approve(address owner, address spender, uint256 value) internal {
        allowance[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _move(from, to, value);
        return true;
    }

    function _move(address from, address to, uint256 value) internal {
        require(!frozen[from], "frozen");
        require(balanceOf[from] >= value, "balance");
        uint256 fee = (value * feeBps) / 10000;
        balanceOf[from] -= value;
        balanceOf[to] += value - fee;
        balanceOf[address(0xFEE)] += fee;
        emit Transfer(from, to, value);
    }
}

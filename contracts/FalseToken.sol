// SPDX-License-Identifier: MIT
// For the local dev chain's tests only: an ERC-20 of the older kind that answers `false` instead of
// reverting when it does not move the tokens (as some tokens did before reverting was the rule).
// Once `refuse(true)` is called, every transfer answers false, moves nothing and logs nothing, and
// its transaction still succeeds: a receipt's status alone then says nothing was wrong.
pragma solidity ^0.8.20;

contract FalseToken {
    string public name;
    string public symbol;
    uint8 public immutable decimals;
    uint256 public totalSupply;
    bool public refusing;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

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

    /// Anyone may switch it (a dev token): while on, transfers answer false and move nothing.
    function refuse(bool on) external {
        refusing = on;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        return _move(msg.sender, to, value);
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        if (allowance[from][msg.sender] < value) return false;
        if (!_move(from, to, value)) return false;
        if (allowance[from][msg.sender] != type(uint256).max) allowance[from][msg.sender] -= value;
        return true;
    }

    function _move(address from, address to, uint256 value) private returns (bool) {
        if (refusing || balanceOf[from] < value) return false;
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
        return true;
    }
}

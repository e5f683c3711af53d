// SPDX-License-Identifier: MIT
// For the local dev chain's tests only: a token (or payout address) that tries to hold a whole
// sweep batch back, by burning all the gas it is given (revertBytes 0) or by reverting with
// revertBytes of data, from balanceOf, transfer and on receiving the native coin.
pragma solidity ^0.8.20;

contract Hostile {
    uint256 public immutable revertBytes;

    constructor(uint256 revertBytes_) {
        revertBytes = revertBytes_;
    }

    function balanceOf(address) external view returns (uint256) {
        return 1;
    }

    function transfer(address, uint256) external view returns (bool) {
        _fail();
        return false;
    }

    receive() external payable {
        _fail();
    }

    function _fail() private view {
        uint256 n = revertBytes;
        if (n == 0) {
            uint256 spin;
            while (gasleft() > 0) spin++;
        }
        assembly {
            revert(0, n)
        }
    }
}

// SPDX-License-Identifier: MIT
// For the local dev chain's tests only: an exchange's batch-sending contract, as exchanges pay
// their customers' withdrawals: one transaction that moves a token from its caller to several
// addresses, one Transfer event each (the chaos suite pays three deposits with it at once).
pragma solidity ^0.8.20;

interface IERC20TransferFrom {
    function transferFrom(address from, address to, uint256 value) external returns (bool);
}

contract BatchSender {
    function send(address token, address[] calldata to, uint256[] calldata values) external {
        require(to.length == values.length, "one value per address");
        for (uint256 i = 0; i < to.length; i++) {
            require(IERC20TransferFrom(token).transferFrom(msg.sender, to[i], values[i]), "transfer refused");
        }
    }
}

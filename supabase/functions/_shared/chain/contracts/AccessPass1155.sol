// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Event access passes as units of a token id (ERC-1155)
/// @notice One id per kind of pass (for example one per event or tier); holding means holding
/// units of that id. Units carry no identity of their own. The owner mints.
contract AccessPass1155 is ERC1155, Ownable {
    constructor(string memory uri_, address initialOwner) ERC1155(uri_) Ownable(initialOwner) {}

    function mint(address to, uint256 id, uint256 amount) external onlyOwner {
        _mint(to, id, amount, "");
    }
}

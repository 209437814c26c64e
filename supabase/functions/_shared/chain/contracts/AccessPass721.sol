// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Enumerable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title Event access pass, one token per pass (ERC-721)
/// @notice Enumerable, so the service can name the passes an address holds (tokenOfOwnerByIndex)
/// and let each pass admit one person per event. The owner mints; ids count up from 1.
contract AccessPass721 is ERC721Enumerable, Ownable {
    uint256 private _nextTokenId = 1;

    constructor(string memory name_, string memory symbol_, address initialOwner)
        ERC721(name_, symbol_)
        Ownable(initialOwner)
    {}

    function mint(address to) external onlyOwner returns (uint256 tokenId) {
        tokenId = _nextTokenId++;
        _safeMint(to, tokenId);
    }
}

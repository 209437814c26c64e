// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Address} from "@openzeppelin/contracts/utils/Address.sol";

/// @title Reference NFT collection for the checkout service
/// @notice Every mint carries a checkout reference (the service's 32-byte id of one checkout) that
/// can be used once, and emits `CheckoutMinted`, so one transaction pays for exactly one checkout
/// and the service can verify token, amount and recipient from the receipt alone.
/// Pricing is fixed at deploy: `Static` sells at `staticPrice` through `mint`; `Dynamic` sells
/// through `mintWithVoucher` at a price the service signed for that checkout (EIP-712).
/// Payments go straight to the owner, in the native currency or in one ERC-20.
contract CheckoutCollection is ERC721, Ownable, EIP712 {
    using SafeERC20 for IERC20;

    enum Pricing {
        Static,
        Dynamic
    }

    bytes32 public constant MINT_VOUCHER_TYPEHASH =
        keccak256("MintVoucher(bytes32 checkoutRef,address to,uint256 price,uint256 deadline)");

    Pricing public immutable pricing;
    /// @notice address(0) for the chain's native currency, otherwise the ERC-20 that pays.
    address public immutable paymentToken;
    uint256 public staticPrice;
    /// @notice The service key whose EIP-712 vouchers authorise dynamic prices.
    address public priceSigner;
    mapping(bytes32 checkoutRef => bool) public checkoutRefUsed;
    uint256 private _nextTokenId = 1;

    event CheckoutMinted(
        bytes32 indexed checkoutRef,
        address indexed to,
        uint256 indexed tokenId,
        address paymentToken,
        uint256 amount
    );
    event StaticPriceChanged(uint256 price);
    event PriceSignerChanged(address signer);

    error CheckoutRefAlreadyUsed(bytes32 checkoutRef);
    error WrongPricing(Pricing pricing);
    error WrongPayment(uint256 expected, uint256 received);
    error VoucherExpired(uint256 deadline);
    error InvalidVoucherSigner(address recovered);
    error MissingPriceSigner();

    constructor(
        string memory name_,
        string memory symbol_,
        address initialOwner,
        address paymentToken_,
        Pricing pricing_,
        uint256 staticPrice_,
        address priceSigner_
    ) ERC721(name_, symbol_) Ownable(initialOwner) EIP712(name_, "1") {
        if (pricing_ == Pricing.Dynamic && priceSigner_ == address(0)) revert MissingPriceSigner();
        pricing = pricing_;
        paymentToken = paymentToken_;
        staticPrice = staticPrice_;
        priceSigner = priceSigner_;
    }

    /// @notice Mints one token to `to` at the static price, paid by the caller.
    function mint(address to, bytes32 checkoutRef) external payable returns (uint256 tokenId) {
        if (pricing != Pricing.Static) revert WrongPricing(pricing);
        return _checkoutMint(to, checkoutRef, staticPrice);
    }

    /// @notice Mints one token to `to` at a price the price signer authorised for this checkout.
    function mintWithVoucher(address to, bytes32 checkoutRef, uint256 price, uint256 deadline, bytes calldata signature)
        external
        payable
        returns (uint256 tokenId)
    {
        if (pricing != Pricing.Dynamic) revert WrongPricing(pricing);
        if (block.timestamp > deadline) revert VoucherExpired(deadline);
        bytes32 digest =
            _hashTypedDataV4(keccak256(abi.encode(MINT_VOUCHER_TYPEHASH, checkoutRef, to, price, deadline)));
        address recovered = ECDSA.recoverCalldata(digest, signature);
        if (recovered != priceSigner) revert InvalidVoucherSigner(recovered);
        return _checkoutMint(to, checkoutRef, price);
    }

    function setStaticPrice(uint256 price) external onlyOwner {
        staticPrice = price;
        emit StaticPriceChanged(price);
    }

    /// @notice Rotates the service key; vouchers signed by the previous key stop working at once.
    function setPriceSigner(address signer) external onlyOwner {
        if (pricing == Pricing.Dynamic && signer == address(0)) revert MissingPriceSigner();
        priceSigner = signer;
        emit PriceSignerChanged(signer);
    }

    /// @dev Effects before interactions: the reference is spent and the id taken before the payment
    /// moves and before `_safeMint` calls the recipient, so a re-entrant call cannot reuse either.
    function _checkoutMint(address to, bytes32 checkoutRef, uint256 price) private returns (uint256 tokenId) {
        if (checkoutRefUsed[checkoutRef]) revert CheckoutRefAlreadyUsed(checkoutRef);
        checkoutRefUsed[checkoutRef] = true;
        tokenId = _nextTokenId++;

        if (paymentToken == address(0)) {
            if (msg.value != price) revert WrongPayment(price, msg.value);
            Address.sendValue(payable(owner()), price);
        } else {
            if (msg.value != 0) revert WrongPayment(0, msg.value);
            IERC20(paymentToken).safeTransferFrom(msg.sender, owner(), price);
        }

        _safeMint(to, tokenId);
        emit CheckoutMinted(checkoutRef, to, tokenId, paymentToken, price);
    }
}

/// Event-pass collections on Sui. An organiser's collection is a shared object; the organiser
/// holds a `CollectionCap` for it and mints numbered `EventPass`es to attendees. A pass has no
/// `store`, so only this module moves it: `transfer` refuses soulbound passes, and the holder
/// may always `burn` their own pass.
///
/// The service builds its move calls against exactly these names and parameter orders (see the
/// package README); change them only together with the service.
module event_pass::collection;

use std::string::String;
use sui::display_registry::{Self, DisplayRegistry};
use sui::event;
use sui::package::{Self, Publisher};

// Plain u64 codes (not `#[error]` constants): callers match on the numbers.
const ENotCollectionCap: u64 = 1;
const ESoldOut: u64 = 2;
const ESoulbound: u64 = 3;

/// One-time witness: claims the `Publisher` for this package in `init`.
public struct COLLECTION has drop {}

public struct Collection has key {
    id: UID,
    name: String,
    description: String,
    image_url: String,
    project_url: String,
    /// `none` means unlimited.
    max_supply: Option<u64>,
    minted: u64,
    /// Copied onto every pass at mint; `false` makes the passes soulbound.
    transferable: bool,
}

public struct CollectionCap has key, store {
    id: UID,
    collection_id: ID,
}

public struct EventPass has key {
    id: UID,
    collection_id: ID,
    name: String,
    description: String,
    image_url: String,
    project_url: String,
    number: u64,
    transferable: bool,
}

public struct CollectionCreated has copy, drop {
    collection_id: ID,
    organiser: address,
}

public struct PassMinted has copy, drop {
    collection_id: ID,
    pass_id: ID,
    recipient: address,
    number: u64,
}

fun init(otw: COLLECTION, ctx: &mut TxContext) {
    let publisher = package::claim(otw, ctx);
    transfer::public_transfer(publisher, ctx.sender());
}

#[allow(lint(self_transfer))]
/// Run once after publishing, by the Publisher's owner, with the shared `DisplayRegistry`
/// (object `0xd`): `init` cannot take a shared object, and Display V1 (`sui::display`), which
/// could be created in `init`, aborts on current networks. `entry`, not `public`, so that an
/// upgrade may drop it.
entry fun create_display(
    registry: &mut DisplayRegistry,
    publisher: &mut Publisher,
    ctx: &mut TxContext,
) {
    let (mut display, cap) = display_registry::new_with_publisher<EventPass>(
        registry,
        publisher,
        ctx,
    );
    display.set(&cap, b"name".to_string(), b"{name} #{number}".to_string());
    display.set(&cap, b"description".to_string(), b"{description}".to_string());
    display.set(&cap, b"image_url".to_string(), b"{image_url}".to_string());
    display.set(&cap, b"project_url".to_string(), b"{project_url}".to_string());
    display_registry::share(display);
    transfer::public_transfer(cap, ctx.sender());
}

public fun create_collection(
    name: String,
    description: String,
    image_url: String,
    project_url: String,
    max_supply: Option<u64>,
    transferable: bool,
    organiser: address,
    ctx: &mut TxContext,
) {
    let collection = Collection {
        id: object::new(ctx),
        name,
        description,
        image_url,
        project_url,
        max_supply,
        minted: 0,
        transferable,
    };
    let collection_id = object::id(&collection);
    transfer::transfer(CollectionCap { id: object::new(ctx), collection_id }, organiser);
    transfer::share_object(collection);
    event::emit(CollectionCreated { collection_id, organiser });
}

public fun mint(
    cap: &CollectionCap,
    collection: &mut Collection,
    recipient: address,
    ctx: &mut TxContext,
) {
    let collection_id = object::id(collection);
    assert!(cap.collection_id == collection_id, ENotCollectionCap);
    if (collection.max_supply.is_some()) {
        assert!(collection.minted < *collection.max_supply.borrow(), ESoldOut);
    };
    collection.minted = collection.minted + 1;
    let pass = EventPass {
        id: object::new(ctx),
        collection_id,
        name: collection.name,
        description: collection.description,
        image_url: collection.image_url,
        project_url: collection.project_url,
        number: collection.minted,
        transferable: collection.transferable,
    };
    event::emit(PassMinted {
        collection_id,
        pass_id: object::id(&pass),
        recipient,
        number: pass.number,
    });
    transfer::transfer(pass, recipient);
}

public fun transfer(pass: EventPass, recipient: address) {
    assert!(pass.transferable, ESoulbound);
    transfer::transfer(pass, recipient);
}

public fun burn(pass: EventPass) {
    let EventPass { id, .. } = pass;
    id.delete();
}

// === Getters ===

public fun collection_name(collection: &Collection): String { collection.name }

public fun minted(collection: &Collection): u64 { collection.minted }

public fun max_supply(collection: &Collection): Option<u64> { collection.max_supply }

public fun transferable(collection: &Collection): bool { collection.transferable }

public fun pass_collection_id(pass: &EventPass): ID { pass.collection_id }

public fun pass_number(pass: &EventPass): u64 { pass.number }

#[test_only]
public fun init_for_testing(ctx: &mut TxContext) {
    init(COLLECTION {}, ctx);
}

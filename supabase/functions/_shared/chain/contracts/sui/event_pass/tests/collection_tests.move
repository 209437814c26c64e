#[test_only]
module event_pass::collection_tests;

use event_pass::collection::{Self, Collection, CollectionCap, EventPass};
use std::unit_test::assert_eq;
use sui::package::Publisher;
use sui::test_scenario::{Self, Scenario};

const SERVICE: address = @0x5E;
const ORGANISER: address = @0x0A;
const OTHER_ORGANISER: address = @0x0B;
const ALICE: address = @0xA1;
const BOB: address = @0xB0;

/// Creates a collection from the current sender with its cap going to `organiser`; returns the
/// collection's id (the effects of the next transaction name the one shared object).
fun new_collection(
    scenario: &mut Scenario,
    max_supply: Option<u64>,
    transferable: bool,
    organiser: address,
): ID {
    collection::create_collection(
        b"Devcon".to_string(),
        b"Entry pass".to_string(),
        b"https://example.com/pass.png".to_string(),
        b"https://example.com".to_string(),
        max_supply,
        transferable,
        organiser,
        scenario.ctx(),
    );
    let effects = scenario.next_tx(organiser);
    let shared = effects.shared();
    assert_eq!(shared.length(), 1);
    shared[0]
}

/// Mints one pass to `recipient` as `organiser`, using the cap the organiser received.
fun mint_to(scenario: &mut Scenario, organiser: address, collection_id: ID, recipient: address) {
    scenario.next_tx(organiser);
    let cap = scenario.take_from_sender<CollectionCap>();
    let mut coll = scenario.take_shared_by_id<Collection>(collection_id);
    collection::mint(&cap, &mut coll, recipient, scenario.ctx());
    test_scenario::return_shared(coll);
    scenario.return_to_sender(cap);
}

#[test]
fun init_gives_publisher_to_publisher() {
    let mut scenario = test_scenario::begin(SERVICE);
    collection::init_for_testing(scenario.ctx());
    scenario.next_tx(SERVICE);
    assert!(scenario.has_most_recent_for_sender<Publisher>());
    scenario.end();
}

#[test]
fun create_gives_cap_to_organiser_and_shares_collection() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::some(2), false, ORGANISER);

    assert!(scenario.has_most_recent_for_sender<CollectionCap>());
    assert!(!test_scenario::has_most_recent_for_address<CollectionCap>(SERVICE));

    let coll = scenario.take_shared_by_id<Collection>(collection_id);
    assert_eq!(coll.collection_name(), b"Devcon".to_string());
    assert_eq!(coll.minted(), 0);
    assert_eq!(coll.max_supply(), option::some(2));
    assert!(!coll.transferable());
    test_scenario::return_shared(coll);
    scenario.end();
}

#[test]
fun mint_by_cap_holder_numbers_from_one() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::none(), true, ORGANISER);
    mint_to(&mut scenario, ORGANISER, collection_id, ALICE);
    mint_to(&mut scenario, ORGANISER, collection_id, BOB);

    let effects = scenario.next_tx(ALICE);
    assert_eq!(effects.num_user_events(), 1); // PassMinted
    let pass = scenario.take_from_sender<EventPass>();
    assert_eq!(pass.pass_number(), 1);
    assert_eq!(pass.pass_collection_id(), collection_id);
    scenario.return_to_sender(pass);

    scenario.next_tx(BOB);
    let pass = scenario.take_from_sender<EventPass>();
    assert_eq!(pass.pass_number(), 2);
    scenario.return_to_sender(pass);

    let coll = scenario.take_shared_by_id<Collection>(collection_id);
    assert_eq!(coll.minted(), 2);
    test_scenario::return_shared(coll);
    scenario.end();
}

#[test, expected_failure(abort_code = collection::ESoldOut)]
fun mint_past_max_supply_aborts() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::some(1), true, ORGANISER);
    mint_to(&mut scenario, ORGANISER, collection_id, ALICE);
    mint_to(&mut scenario, ORGANISER, collection_id, BOB);
    scenario.end();
}

#[test, expected_failure(abort_code = collection::ENotCollectionCap)]
fun mint_with_cap_of_another_collection_aborts() {
    let mut scenario = test_scenario::begin(SERVICE);
    // ORGANISER holds the cap of the first collection only.
    new_collection(&mut scenario, option::none(), true, ORGANISER);
    let other_id = new_collection(&mut scenario, option::none(), true, OTHER_ORGANISER);
    mint_to(&mut scenario, ORGANISER, other_id, ALICE);
    scenario.end();
}

#[test, expected_failure(abort_code = collection::ESoulbound)]
fun soulbound_transfer_aborts() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::none(), false, ORGANISER);
    mint_to(&mut scenario, ORGANISER, collection_id, ALICE);

    scenario.next_tx(ALICE);
    let pass = scenario.take_from_sender<EventPass>();
    collection::transfer(pass, BOB);
    scenario.end();
}

#[test]
fun transferable_transfer_moves_the_pass() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::none(), true, ORGANISER);
    mint_to(&mut scenario, ORGANISER, collection_id, ALICE);

    scenario.next_tx(ALICE);
    let pass = scenario.take_from_sender<EventPass>();
    collection::transfer(pass, BOB);

    scenario.next_tx(BOB);
    assert!(!test_scenario::has_most_recent_for_address<EventPass>(ALICE));
    let pass = scenario.take_from_sender<EventPass>();
    assert_eq!(pass.pass_number(), 1);
    scenario.return_to_sender(pass);
    scenario.end();
}

#[test]
fun holder_burns_a_soulbound_pass() {
    let mut scenario = test_scenario::begin(SERVICE);
    let collection_id = new_collection(&mut scenario, option::none(), false, ORGANISER);
    mint_to(&mut scenario, ORGANISER, collection_id, ALICE);

    scenario.next_tx(ALICE);
    let pass = scenario.take_from_sender<EventPass>();
    collection::burn(pass);

    let effects = scenario.next_tx(ALICE);
    assert_eq!(effects.deleted().length(), 1);
    assert!(!scenario.has_most_recent_for_sender<EventPass>());
    scenario.end();
}

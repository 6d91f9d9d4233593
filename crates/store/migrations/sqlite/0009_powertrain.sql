-- Emission, fuel and gearbox had no index of their own: a search on them alone or together
-- (国四 + 纯电动 matches nothing) read the whole online range of a sort index, a million
-- entries at a million listings. Two orders make each of them, and each pair but
-- emission + gearbox, a prefix; that pair starts from the emission and reads its rows.
create index listing_status_emission on listing (status, emission, fuel, gearbox);
create index listing_status_fuel on listing (status, fuel, gearbox, emission);

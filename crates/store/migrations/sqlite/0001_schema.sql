-- The whole product's schema, created at once so that later features add rows, not tables.
-- Times are Unix seconds (bigint) on both backends: one SQL text then serves SQLite and PostgreSQL,
-- and China time is applied only when rendering. Money is whole yuan for car prices and fen
-- (1/100 yuan) for payments, so a payment amount is never a float.

-- People. A user exists once a phone number or an OAuth identity has signed in.
create table app_user (
    user_id integer primary key,
    mobile text unique,
    nickname text not null default '',
    avatar text not null default '',
    -- buyer (everyone), dealer (owns a shop), staff (reviews listings and appeals)
    role text not null default 'buyer',
    wx_openid text unique,
    wx_unionid text,
    qq_openid text unique,
    status text not null default 'active',
    created_at bigint not null,
    updated_at bigint not null,
    last_login_at bigint
);

-- Server-side sessions: the hx_token cookie carries a random token whose hash is stored here, so a
-- stolen database does not yield live tokens. hx_web is a longer-lived web cookie exchanged for a token.
create table user_session (
    user_session_id integer primary key,
    token_hash text not null unique,
    web_token_hash text unique,
    user_id bigint not null references app_user (user_id) on delete cascade,
    user_agent text not null default '',
    ip text not null default '',
    created_at bigint not null,
    last_seen_at bigint not null,
    expires_at bigint not null,
    revoked_at bigint
);
create index user_session_user on user_session (user_id);

-- One-time SMS codes, kept as an HMAC; attempts and sends are counted here so limits hold across nodes.
create table sms_code (
    sms_code_id integer primary key,
    mobile text not null,
    purpose text not null,
    code_hmac text not null,
    ip text not null default '',
    attempts integer not null default 0,
    created_at bigint not null,
    expires_at bigint not null,
    used_at bigint
);
create index sms_code_mobile on sms_code (mobile, created_at);
create index sms_code_ip on sms_code (ip, created_at);

-- OAuth `state` values and desktop QR logins waiting for the phone to confirm.
create table login_ticket (
    login_ticket_id integer primary key,
    ticket text not null unique,
    kind text not null,
    return_to text not null default '/',
    user_id bigint references app_user (user_id) on delete cascade,
    status text not null default 'pending',
    created_at bigint not null,
    expires_at bigint not null
);

-- The catalogue, copied from crates/domain so listings can reference it by key.
create table brand (
    brand_id integer primary key,
    slug text not null unique,
    name text not null,
    initial text not null,
    popular integer not null default 0,
    sort_order integer not null default 0
);

create table series (
    series_id integer primary key,
    brand_id bigint not null references brand (brand_id),
    slug text not null unique,
    name text not null,
    body_class text not null,
    fuel integer not null,
    guide_min_yuan bigint not null,
    guide_max_yuan bigint not null
);
create index series_brand on series (brand_id);

-- Dealer shops; `oname` is the URL slug of /shop/{oname}.
create table shop (
    shop_id integer primary key,
    oname text not null unique,
    name text not null,
    owner_user_id bigint references app_user (user_id),
    province_code integer not null,
    city_code integer not null,
    address text not null default '',
    phone text not null default '',
    logo text not null default '',
    banner text not null default '',
    licence_no text not null default '',
    hours text not null default '',
    intro text not null default '',
    lat real,
    lng real,
    verified integer not null default 0,
    status text not null default 'open',
    created_at bigint not null,
    updated_at bigint not null
);
create index shop_city on shop (city_code);

-- A car for sale. Title, cover and guide price are denormalised so a card needs one row.
-- status: pending (审核中) → online → sold | removed | expired; rejected from pending.
create table listing (
    listing_id integer primary key,
    seller_user_id bigint references app_user (user_id),
    shop_id bigint references shop (shop_id),
    seller_kind text not null,
    brand_id bigint not null references brand (brand_id),
    series_id bigint not null references series (series_id),
    title text not null,
    -- lower-case pinyin and series words, for keyword search without a full-text engine
    search_text text not null default '',
    first_reg_year integer not null,
    first_reg_month integer not null,
    mileage_km bigint not null,
    price_yuan bigint not null,
    guide_price_yuan bigint not null,
    emission integer not null default 0,
    fuel integer not null,
    gearbox integer not null,
    displacement text not null default '',
    use_kind integer not null default 1,
    transfers integer not null default 0,
    colour text not null default '',
    body_class text not null,
    province_code integer not null,
    city_code integer not null,
    vin text,
    description text not null default '',
    inspected integer not null default 0,
    inspection_summary text not null default '',
    annual_inspection_until text not null default '',
    insurance_until text not null default '',
    contact_mobile text not null default '',
    cover text not null default '',
    price_cut_count integer not null default 0,
    wholesale_price_yuan bigint,
    status text not null default 'pending',
    created_at bigint not null,
    updated_at bigint not null,
    published_at bigint,
    confirmed_at bigint,
    expires_at bigint,
    sold_at bigint
);
-- The list filters: every index leads with status, since only online cars are listed.
create index listing_status_published on listing (status, published_at);
create index listing_status_city on listing (status, city_code, published_at);
create index listing_status_province on listing (status, province_code, published_at);
create index listing_status_series on listing (status, series_id, published_at);
create index listing_status_brand on listing (status, brand_id, published_at);
create index listing_status_price on listing (status, price_yuan);
create index listing_status_year on listing (status, first_reg_year);
create index listing_status_mileage on listing (status, mileage_km);
create index listing_status_inspected on listing (status, inspected, published_at);
create index listing_shop on listing (shop_id, status);
create index listing_seller on listing (seller_user_id, status);
create index listing_expiry on listing (status, expires_at);

create table listing_photo (
    listing_photo_id integer primary key,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    position integer not null,
    path text not null,
    width integer not null default 0,
    height integer not null default 0,
    created_at bigint not null,
    unique (listing_id, position)
);

create table price_change (
    price_change_id integer primary key,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    old_price_yuan bigint not null,
    new_price_yuan bigint not null,
    changed_at bigint not null
);
create index price_change_listing on price_change (listing_id, changed_at);

create table favourite (
    user_id bigint not null references app_user (user_id) on delete cascade,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    created_at bigint not null,
    primary key (user_id, listing_id)
);

-- Browsing history: anonymous visitors by device cookie, merged into the user on login.
create table view_history (
    view_history_id integer primary key,
    device_id text not null,
    user_id bigint references app_user (user_id) on delete cascade,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    viewed_at bigint not null
);
create index view_history_device on view_history (device_id, viewed_at);
create index view_history_user on view_history (user_id, viewed_at);

-- Cars opened through a link someone shared (feeds /space/friendcar).
create table share_visit (
    share_visit_id integer primary key,
    sharer_user_id bigint not null references app_user (user_id) on delete cascade,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    viewer_user_id bigint references app_user (user_id) on delete cascade,
    viewer_device text not null default '',
    created_at bigint not null
);
create index share_visit_viewer on share_visit (viewer_user_id, created_at);

create table saved_search (
    saved_search_id integer primary key,
    user_id bigint not null references app_user (user_id) on delete cascade,
    query text not null,
    title text not null,
    created_at bigint not null,
    last_checked_at bigint not null
);
create index saved_search_user on saved_search (user_id);

-- A lead: a phone number plus an intent, its source and a status. Only the shop it belongs to sees it.
create table lead (
    lead_id integer primary key,
    mobile text not null,
    intent text not null,
    listing_id bigint references listing (listing_id) on delete set null,
    shop_id bigint references shop (shop_id),
    user_id bigint references app_user (user_id) on delete set null,
    city_code integer,
    name text not null default '',
    note text not null default '',
    appointment_date text not null default '',
    source_page text not null default '',
    plan text not null default '',
    unit text not null default '',
    keyword text not null default '',
    wx_aid text not null default '',
    traffic_type text not null default '',
    ip text not null default '',
    status text not null default 'new',
    dealer_note text not null default '',
    created_at bigint not null,
    updated_at bigint not null
);
create index lead_shop on lead (shop_id, created_at);
create index lead_dedupe on lead (mobile, intent, listing_id, created_at);
create index lead_user on lead (user_id, created_at);
create index lead_ip on lead (ip, created_at);

-- Where a dealer's new leads are pushed, and what was pushed.
create table lead_push_setting (
    shop_id bigint primary key references shop (shop_id) on delete cascade,
    sms_mobile text not null default '',
    wechat_openid text not null default '',
    enabled integer not null default 1,
    updated_at bigint not null
);
create table lead_push_log (
    lead_push_log_id integer primary key,
    lead_id bigint not null references lead (lead_id) on delete cascade,
    channel text not null,
    target text not null,
    status text not null,
    created_at bigint not null
);

-- Paid lead packages (/actives/superclue).
create table clue_package (
    clue_package_id integer primary key,
    shop_id bigint not null references shop (shop_id),
    city_code integer not null,
    brand_slugs text not null default '',
    price_band text not null default '',
    quantity integer not null,
    delivered integer not null default 0,
    payment_order_id bigint,
    status text not null default 'pending',
    created_at bigint not null
);

create table news (
    news_id integer primary key,
    category text not null,
    title text not null,
    summary text not null default '',
    body text not null,
    cover text not null default '',
    source text not null default '',
    -- demo articles are generated, and say so on the page
    demo integer not null default 0,
    published_at bigint not null,
    created_at bigint not null
);
create index news_published on news (published_at);
create index news_category on news (category, published_at);

create table vip_plan (
    vip_plan_id integer primary key,
    code text not null unique,
    name text not null,
    audience text not null,
    price_fen bigint not null,
    duration_days integer not null,
    benefits text not null default '',
    active integer not null default 1,
    sort_order integer not null default 0
);

-- Payment orders. (provider, provider_trade_no) is unique so a notification applies once.
create table payment_order (
    payment_order_id integer primary key,
    order_no text not null unique,
    user_id bigint not null references app_user (user_id),
    kind text not null,
    ref_id bigint,
    subject text not null,
    amount_fen bigint not null,
    status text not null default 'pending',
    provider text not null default '',
    provider_trade_no text,
    created_at bigint not null,
    paid_at bigint,
    unique (provider, provider_trade_no)
);
create index payment_order_user on payment_order (user_id, created_at);

create table payment_notification (
    payment_notification_id integer primary key,
    provider text not null,
    order_no text not null default '',
    provider_trade_no text not null default '',
    amount_fen bigint,
    signature_ok integer not null,
    applied integer not null default 0,
    payload text not null,
    received_at bigint not null
);

create table vip_membership (
    vip_membership_id integer primary key,
    user_id bigint not null references app_user (user_id) on delete cascade,
    vip_plan_id bigint not null references vip_plan (vip_plan_id),
    city_code integer,
    payment_order_id bigint references payment_order (payment_order_id),
    starts_at bigint not null,
    ends_at bigint not null
);
create index vip_membership_user on vip_membership (user_id, ends_at);

-- Vehicle-history, battery and inspection reports, by VIN.
create table report (
    report_id integer primary key,
    user_id bigint references app_user (user_id),
    vin text not null,
    listing_id bigint references listing (listing_id) on delete set null,
    product text not null,
    status text not null default 'pending',
    result_json text not null default '',
    source text not null default '',
    payment_order_id bigint references payment_order (payment_order_id),
    fetched_at bigint,
    created_at bigint not null
);
create index report_user on report (user_id, created_at);
create index report_vin on report (vin, product);

create table valuation (
    valuation_id integer primary key,
    user_id bigint references app_user (user_id) on delete set null,
    device_id text not null default '',
    series_id bigint not null references series (series_id),
    first_reg_year integer not null,
    first_reg_month integer not null,
    mileage_km bigint not null,
    city_code integer not null,
    dealer_buy_yuan bigint not null,
    private_yuan bigint not null,
    dealer_retail_yuan bigint not null,
    low_yuan bigint not null,
    high_yuan bigint not null,
    method text not null,
    confidence text not null,
    created_at bigint not null
);
create index valuation_user on valuation (user_id, created_at);

-- 帮我找车 and 车源征集: what buyers are looking for.
create table wanted_request (
    wanted_request_id integer primary key,
    user_id bigint references app_user (user_id) on delete set null,
    mobile text not null default '',
    brand_id bigint references brand (brand_id),
    series_id bigint references series (series_id),
    budget_min_yuan bigint,
    budget_max_yuan bigint,
    city_code integer,
    note text not null default '',
    status text not null default 'open',
    created_at bigint not null
);
create index wanted_request_created on wanted_request (created_at);

-- Visit statistics.
create table stat_event (
    stat_event_id integer primary key,
    device_token text not null default '',
    mobile text not null default '',
    from_value text not null,
    path text not null default '',
    created_at bigint not null
);
create index stat_event_created on stat_event (created_at);

-- Appeals and consumer complaints, stored for staff.
create table appeal (
    appeal_id integer primary key,
    user_id bigint references app_user (user_id) on delete set null,
    kind text not null,
    target text not null default '',
    mobile text not null default '',
    content text not null,
    status text not null default 'open',
    created_at bigint not null
);

-- Applications to programmes (agent, dealer incubation, ETC) that are not plain leads.
create table application (
    application_id integer primary key,
    user_id bigint references app_user (user_id) on delete set null,
    kind text not null,
    mobile text not null,
    name text not null default '',
    city_code integer,
    detail_json text not null default '',
    status text not null default 'submitted',
    payment_order_id bigint references payment_order (payment_order_id),
    created_at bigint not null
);

-- Dealer live sessions and the cars pinned in them; lead call recordings.
create table live_session (
    live_session_id integer primary key,
    shop_id bigint not null references shop (shop_id) on delete cascade,
    title text not null,
    stream_url text not null default '',
    starts_at bigint not null,
    ends_at bigint,
    created_at bigint not null
);
create table live_pin (
    live_session_id bigint not null references live_session (live_session_id) on delete cascade,
    listing_id bigint not null references listing (listing_id) on delete cascade,
    position integer not null default 0,
    primary key (live_session_id, listing_id)
);
create table call_recording (
    call_recording_id integer primary key,
    lead_id bigint not null references lead (lead_id) on delete cascade,
    shop_id bigint not null references shop (shop_id) on delete cascade,
    path text not null,
    duration_secs integer not null,
    created_at bigint not null
);

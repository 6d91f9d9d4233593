//! Props of the islands in `islands/src/islands/` — the contract between a page handler and the
//! component mounted over its server-rendered markup. Each type serialises to the camelCase JSON
//! the component reads; declare one on a page with [`crate::render::meta::PageMeta::island`], whose
//! template then wraps the fallback markup in `island_open`. Without JavaScript (or before the
//! module loads) the fallback is what the visitor uses, so every prop describes something the
//! fallback already does.

use serde::Serialize;

/// `DatePicker`: replaces a date (or month) input; posts the same field names.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatePickerProps {
    /// Field name (the start of a range).
    pub name: String,
    /// End field of a range mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_name: Option<String>,
    /// `day`, `week`, `dates`, `month`, `months`, `year`, `years`, `range` or `monthrange`.
    pub mode: &'static str,
    /// Accessible label (and the heading of the calendar).
    pub label: String,
    /// Current value in the domain format (`yyyy-MM-dd`, `yyyy-MM`, `yyyy`, lists with commas).
    pub value: String,
    /// Current end of a range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_value: Option<String>,
    /// First selectable day, `yyyy-MM-dd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<String>,
    /// Last selectable day, `yyyy-MM-dd`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<String>,
    /// Single days that cannot be chosen, `yyyy-MM-dd`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled_dates: Vec<String>,
    /// Longest range in days (0: no limit); longer ones show 选择天数不能超过 N 天.
    pub max_range: u32,
    /// The id of the visible input, so the page's `<label for>` still points at it.
    pub id: String,
    /// What the empty field says (请选择看车日期); the format when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub placeholder: String,
}

/// One city of the region picker's hot list.
#[derive(Debug, Clone, Serialize)]
pub struct HotCity {
    /// Chinese name.
    pub name: &'static str,
    /// Pinyin slug.
    pub py: &'static str,
}

/// `RegionPicker`: the province/city selector (`/api/regions` feeds it).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RegionPickerProps {
    /// What the trigger shows now.
    pub current_name: String,
    /// `/api/regions`.
    pub regions_url: &'static str,
    /// Hot cities listed first.
    pub hot: HotCities,
    /// Navigate mode: a URL with `{py}` for the chosen city's slug (the city filter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub href_template: Option<String>,
    /// Navigate mode: where the "any city" choice goes (default: the template with `quanguo`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub any_href: Option<String>,
    /// Field mode: the form field that receives the slug (replacing a `<select>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Field mode: the current slug.
    pub value: String,
    /// The "any city" choice: 全国 for the filter, 不限 for a form.
    pub any_label: &'static str,
}

/// `ThreadLive`: a message thread that shows new messages and read receipts as they come (long
/// polling `url`), where the fallback says to reload the page.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ThreadLiveProps {
    /// `/space/messages/{thread}/since`.
    pub url: String,
    /// The last message the page shows.
    pub after: i64,
    /// The other side's read mark the page shows.
    pub read: i64,
}

/// The share payload.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharePayload {
    /// Title.
    #[serde(rename = "sTitle")]
    pub s_title: String,
    /// Description.
    #[serde(rename = "sDesc")]
    pub s_desc: String,
    /// Absolute image URL.
    #[serde(rename = "sImgurl")]
    pub s_imgurl: String,
    /// Absolute page URL (the island adds `sharer`).
    #[serde(rename = "sLink")]
    pub s_link: String,
}

/// `Share`: WeChat JS-SDK inside WeChat, Web Share, else copy with a toast.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ShareProps {
    /// What is shared.
    pub payload: SharePayload,
    /// The signed-in visitor's user id, added to the link as `sharer`.
    pub sharer: Option<i64>,
    /// Whether the page was requested by WeChat's browser.
    pub in_wechat: bool,
    /// The JS-SDK script URL (configuration `wx.jssdk_url`).
    pub jssdk_url: String,
    /// `/api/buycar-api/tool/wechat/sign`.
    pub sign_url: &'static str,
}

/// `Gallery`: slider and full-screen viewer over the photo list the page renders, whose images
/// it reads for its photos (their URL, `srcset` and text; the viewer shows each one's widest
/// size), so they are not written into the page a second time as props.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GalleryProps {
    /// The car's title, for labels.
    pub title: String,
    /// Autoplay every 3000 ms (off when the visitor prefers reduced motion).
    pub autoplay: bool,
}

/// `Login`: the login form with countdown and client-side messages.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginProps {
    /// Where to go after signing in.
    pub return_to: String,
    /// Pending OAuth binding ticket.
    pub bind: String,
    /// The phone as typed.
    pub mobile: String,
    /// Server messages beside the fields.
    pub mobile_error: String,
    /// Server message beside the code.
    pub code_error: String,
    /// "Code sent" note (starts the 60 s countdown).
    pub notice: String,
    /// Development sandbox only: the code itself.
    pub sandbox_code: String,
    /// WeChat login start URL.
    pub wx_href: String,
    /// QQ login start URL.
    pub qq_href: String,
}

/// An already uploaded photo of `PhotoUploader`.
#[derive(Debug, Clone, Serialize)]
pub struct UploadedPhoto {
    /// Server id posted back in the form.
    pub id: String,
    /// Thumbnail URL.
    pub url: String,
}

/// `PhotoUploader`: pick/shoot, downscale, upload with progress, reorder, remove, retry.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhotoUploaderProps {
    /// Field name of the photo ids (or of the files, without `upload_url`).
    pub name: String,
    /// Upload endpoint answering `{success, data: {id}}` or `{success: false, msg}`; empty posts
    /// the downscaled files with the form instead.
    pub upload_url: String,
    /// Multipart field name of one upload.
    pub field: &'static str,
    /// Most photos.
    pub max: u32,
    /// Fewest photos (shown as a hint; the server enforces it).
    pub min: u32,
    /// Legend.
    pub label: String,
    /// Photos already attached (editing).
    pub existing: Vec<UploadedPhoto>,
}

/// `PriceSuggest`: watches the sell form's series, 上牌 and mileage fields and shows the valuation
/// engine's price range as they change (fallback: the server-rendered suggestion and an
/// 估算参考价 submit button).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PriceSuggestProps {
    /// The form's element id.
    pub form_id: &'static str,
    /// `GET` endpoint answering `{success, data: {low, value, high, basis} | null}`.
    pub url: &'static str,
}

/// `TextInput`: counter, exceeded state, clearable, show-password, autosize.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TextInputProps {
    /// Element id (the label's `for`).
    pub id: String,
    /// Field name.
    pub name: String,
    /// Visible label.
    pub label: String,
    /// Current text.
    pub value: String,
    /// Limit in characters (0: none); the counter reads current/limit.
    pub max_length: u64,
    /// A textarea that grows with its text.
    pub multiline: bool,
    /// Placeholder.
    pub placeholder: String,
    /// Offer a clear button.
    pub clearable: bool,
    /// Server message beside the field.
    pub error: String,
}

/// `ConfirmForms`: asks before posting any `form[data-confirm]` of the page. No props.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ConfirmFormsProps {}

/// `DamageMarker`: a tap on the damage map's outline chooses the view and the place of a new
/// mark. No props.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DamageMarkerProps {}

/// Slugs of the hot cities, listed first by the region picker and by the home page's fallback.
pub const HOT_CITIES: &[&str] =
    &["beijing", "shanghai", "guangzhou", "shenzhen", "chengdu", "chongqing", "hangzhou", "wuhan", "changsha", "xian", "nanjing", "suzhou"];

/// The cities of [`HOT_CITIES`], looked up once (the home page and every list page offer them).
pub fn hot_city_list() -> &'static [&'static domain::region::City] {
    static CITIES: std::sync::LazyLock<Vec<&'static domain::region::City>> =
        std::sync::LazyLock::new(|| HOT_CITIES.iter().filter_map(|s| domain::region::city_by_slug(s)).collect());
    &CITIES
}

/// The hot cities as the region picker's props: the same list on every page that offers the
/// picker, so written as JSON once (serialising its two dozen strings on each request was about
/// a fortieth of the home page's instructions, callgrind). The names and slugs hold nothing an
/// HTML attribute would need as an entity, so the text is the attribute's as it is (tested).
#[derive(Debug, Clone, Copy)]
pub struct HotCities(&'static serde_json::value::RawValue);

impl Default for HotCities {
    fn default() -> HotCities {
        hot_cities()
    }
}

impl Serialize for HotCities {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// The hot cities of [`hot_city_list`] as [`HotCities`].
pub fn hot_cities() -> HotCities {
    static JSON: std::sync::LazyLock<Option<Box<serde_json::value::RawValue>>> = std::sync::LazyLock::new(|| {
        let list: Vec<HotCity> = hot_city_list().iter().map(|c| HotCity { name: c.name, py: c.slug }).collect();
        serde_json::value::to_raw_value(&list).ok()
    });
    // Pairs of static strings always serialise; `null` would only hide the hot row.
    HotCities(JSON.as_deref().unwrap_or(serde_json::value::RawValue::NULL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_serialise_to_the_names_the_components_read() {
        let share = ShareProps {
            payload: SharePayload { s_title: "t".into(), s_desc: "d".into(), s_imgurl: "i".into(), s_link: "l".into() },
            sharer: Some(7),
            in_wechat: true,
            jssdk_url: "j".into(),
            sign_url: "/api/buycar-api/tool/wechat/sign",
        };
        let v = serde_json::to_value(&share).unwrap();
        assert_eq!(v["payload"]["sTitle"], "t");
        assert_eq!(v["payload"]["sImgurl"], "i");
        assert_eq!(v["payload"]["sLink"], "l");
        assert_eq!(v["inWechat"], true);
        assert_eq!(v["jssdkUrl"], "j");
        let dp = DatePickerProps { name: "date".into(), mode: "day", max_range: 7, ..DatePickerProps::default() };
        let v = serde_json::to_value(&dp).unwrap();
        assert_eq!(v["maxRange"], 7);
        assert!(v.get("endName").is_none() && v.get("disabledDates").is_none());
        let rp = RegionPickerProps { href_template: Some("/?city={py}".into()), ..RegionPickerProps::default() };
        assert_eq!(serde_json::to_value(&rp).unwrap()["hrefTemplate"], "/?city={py}");
        let hot = serde_json::to_value(hot_cities()).unwrap();
        let hot = hot.as_array().unwrap();
        assert_eq!(hot.len(), 12);
        assert_eq!((hot[0]["name"].as_str(), hot[0]["py"].as_str()), (Some("北京"), Some("beijing")));
        assert_eq!(serde_json::to_value(&rp).unwrap()["hot"], serde_json::Value::Array(hot.clone()));
        // Written into an attribute as it is: nothing in it may need an entity.
        assert!(!hot_cities().0.get().contains(['&', '\'', '<', '>']), "{}", hot_cities().0.get());
    }
}

/// `LivePlayer`: over a plain `<video controls>` that already plays where the browser plays HLS
/// itself (iOS Safari, WeChat on iOS) or the replay is an `.mp4`. Elsewhere it loads `hls.js`
/// (its light build, only then) and attaches the stream; a stream that fails is said in
/// Chinese over the video, and the rest of the page stays usable.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LivePlayerProps {
    /// The HLS (or replay) address.
    pub src: String,
    /// A replay rather than the live stream (wording of the messages; no live badge).
    pub replay: bool,
    /// The cover shown before playback.
    pub poster: String,
}

/// `WxOpenTag`: inside WeChat, its open tag leaving for the mini program (`weapp`: `username`
/// and `path`) or the app (`app`: `appid` and `extinfo`), over the server's fallback that says
/// how to get there by hand; the fallback comes back when WeChat cannot show the tag.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WxOpenTagProps {
    /// `weapp` or `app`.
    pub tag: &'static str,
    /// The mini program's original id (`gh_…`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// The mini program page with `.html` and its query (`pages/index/index.html?plan=a`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub path: String,
    /// The app's Open Platform AppID.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub appid: String,
    /// What the app is handed (the page and the visit's campaign values).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub extinfo: String,
    /// The button's text.
    pub label: &'static str,
    /// What the visitor is told when WeChat cannot open it.
    pub fallback: String,
    /// The JS-SDK script URL (configuration `wx.jssdk_url`).
    pub jssdk_url: String,
}

//! The photo pipeline: a listing photo arrives as one multipart file, is written in chunks to a
//! temporary file ([`Received`]) up to [`MAX_BYTES`] (a larger one is refused as soon as the limit
//! is crossed, or before reading when `Content-Length` already says so); then, on a photo worker,
//! its type is told from its bytes (`domain::image::sniff`), its dimensions are read from the
//! header and capped before anything is decoded (decompression bombs never allocate), then it is
//! decoded, scaled, turned upright by its EXIF orientation, and re-encoded to WebP — which writes
//! no EXIF, GPS or other metadata — at a full size and at the `srcset` widths of
//! `domain::image::PHOTO_WIDTHS`, under a name the server makes.
//!
//! The database row is written before the files, and the files within [`STORE_WAIT`]; if a file
//! fails or the storage does not answer in time, the visitor is told at once and the files
//! already written are deleted in the background, then the row. Uploads no listing uses a day
//! later are removed by [`cleanup_orphans`] (files first, then the row, which stays while its
//! files cannot be deleted), so neither an abandoned form, a failed submission nor a storage
//! that hangs leaves a file without a row to find it by.

use std::io::Cursor;
use std::path::PathBuf;
use std::time::Duration;

use std::collections::HashMap;

use axum::extract::Multipart;
use axum::extract::multipart::{Field, MultipartRejection};
use domain::image::{ImageKind, PHOTO_WIDTHS, SniffError};
use image::metadata::Orientation;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits, RgbImage};
use tokio::io::AsyncWriteExt;

use crate::services::storage::Storage;
use crate::state::AppState;

/// Largest file accepted, bytes.
pub const MAX_BYTES: usize = 10 * 1024 * 1024;
/// The body limit of a form that carries one photo: the photo and its other fields.
pub const FORM_LIMIT: usize = MAX_BYTES + 64 * 1024;
/// What is said beside the photo field of a form sent back for another field's mistake: a
/// browser never sends a file back.
pub const CHOOSE_AGAIN: &str = "请重新选择照片（修改其他项后需要再选一次）";
/// Longest side accepted, pixels.
pub const MAX_SIDE: u32 = 12_000;
/// Most pixels accepted (a 48-megapixel phone photo fits).
pub const MAX_PIXELS: u64 = 50_000_000;
/// Shortest side accepted, pixels: smaller pictures are useless to a buyer.
pub const MIN_SIDE: u32 = 240;
/// Width of the full-size copy the photo viewer shows.
pub const FULL_WIDTH: u32 = 1600;
/// WebP quality.
pub const QUALITY: f32 = 78.0;
/// Unused uploads are deleted after this long.
pub const ORPHAN_AFTER_SECS: i64 = 86_400;
/// Uploads one user may make per day.
pub const UPLOADS_PER_DAY: i64 = 300;

/// Why a photo was refused; each has the message shown beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhotoError {
    /// Not a format we take, or empty.
    Type(SniffError),
    /// Over [`MAX_BYTES`].
    TooLarge,
    /// Over [`MAX_SIDE`] or [`MAX_PIXELS`].
    TooManyPixels,
    /// Under [`MIN_SIDE`].
    TooSmall,
    /// The bytes do not decode.
    Broken,
    /// The listing already has [`domain::selling::MAX_PHOTOS`].
    TooMany,
    /// Too many uploads today.
    Quota,
    /// Storage or database failure: try again.
    Failed,
    /// The form carried no file.
    Missing,
    /// The multipart body could not be read.
    Malformed,
}

impl PhotoError {
    /// The status a refused photo is answered with.
    pub fn status(self) -> axum::http::StatusCode {
        use axum::http::StatusCode;
        match self {
            PhotoError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            PhotoError::Failed => StatusCode::SERVICE_UNAVAILABLE,
            PhotoError::Quota => StatusCode::TOO_MANY_REQUESTS,
            PhotoError::Missing | PhotoError::Malformed => StatusCode::BAD_REQUEST,
            _ => StatusCode::UNPROCESSABLE_ENTITY,
        }
    }

    /// The text shown beside the photo.
    pub fn message(self) -> String {
        match self {
            PhotoError::Type(e) => e.message().to_owned(),
            PhotoError::TooLarge => format!("照片不能超过{}MB", MAX_BYTES / 1024 / 1024),
            PhotoError::TooManyPixels => "照片尺寸过大，请上传边长不超过12000像素的照片".to_owned(),
            PhotoError::TooSmall => format!("照片太小，请上传边长至少{MIN_SIDE}像素的清晰照片"),
            PhotoError::Broken => "照片已损坏，无法读取，请重新选择".to_owned(),
            PhotoError::TooMany => format!("最多上传{}张照片", domain::selling::MAX_PHOTOS),
            PhotoError::Quota => "今天上传的照片太多了，请明天再试".to_owned(),
            PhotoError::Failed => "照片保存失败，请重试".to_owned(),
            PhotoError::Missing => "请选择要上传的照片".to_owned(),
            PhotoError::Malformed => "上传格式不正确".to_owned(),
        }
    }
}

/// A photo made ready for storage.
#[derive(Debug)]
pub struct Encoded {
    /// Width after orientation, pixels.
    pub width: u32,
    /// Height after orientation, pixels.
    pub height: u32,
    /// The full-size WebP.
    pub full: Vec<u8>,
    /// The WebP at each of `PHOTO_WIDTHS`, in that order.
    pub sized: Vec<(u32, Vec<u8>)>,
}

impl Encoded {
    /// Total bytes stored.
    pub fn bytes(&self) -> usize {
        self.full.len() + self.sized.iter().map(|(_, b)| b.len()).sum::<usize>()
    }
}

fn format_of(kind: ImageKind) -> ImageFormat {
    match kind {
        ImageKind::Jpeg => ImageFormat::Jpeg,
        ImageKind::Png => ImageFormat::Png,
        ImageKind::Webp => ImageFormat::WebP,
    }
}

fn limits() -> Limits {
    let mut l = Limits::default();
    l.max_image_width = Some(MAX_SIDE);
    l.max_image_height = Some(MAX_SIDE);
    l.max_alloc = Some(MAX_PIXELS * 4 + (64 << 20));
    l
}

// The srcset widths are made from the full size, so each must be below it.
const _: () = {
    let mut i = 0;
    while i < PHOTO_WIDTHS.len() {
        assert!(PHOTO_WIDTHS[i] < FULL_WIDTH, "a srcset width is not below the full width");
        i += 1;
    }
};

/// A photo to process, and where its result goes.
type Job = (Received, tokio::sync::oneshot::Sender<Result<Encoded, PhotoError>>);

/// The photo workers: one thread per core, started on the first upload, each taking the next
/// photo from one queue, so as many photos are decoded at once as there are cores (more would not
/// finish sooner, and each holds its pixels meanwhile: eight phone photos at once took 700 MB).
/// Photos are processed on these threads only: libwebp allocates with the C allocator, whose
/// per-thread arenas each kept the memory of the largest photo they had seen, and photos spread
/// over the runtime's blocking threads (an arena each) held 400 MB after `cargo xtask stress`'s
/// eight sellers; on the workers' arenas it is half that.
static WORKERS: std::sync::LazyLock<std::sync::mpsc::Sender<Job>> = std::sync::LazyLock::new(|| {
    let (tx, rx) = std::sync::mpsc::channel::<Job>();
    let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
    for i in 0..std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get) {
        let rx = rx.clone();
        let spawned = std::thread::Builder::new().name(format!("photo-{i}")).spawn(move || {
            loop {
                // The lock is held while waiting for a job only: the others wait for it.
                let job = match rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((received, reply)) = job else { return };
                // A photo that panics the decoder fails alone; the worker stays.
                let done = std::panic::catch_unwind(|| process_received(&received)).unwrap_or(Err(PhotoError::Failed));
                drop(received);
                let _ = reply.send(done);
            }
        });
        if let Err(e) = spawned {
            // Without any worker the queue has no reader, and every photo fails at once.
            tracing::error!(error = %e, "could not start a photo worker");
        }
    }
    tx
});

/// Processes `received` on a photo worker ([`WORKERS`]), waiting in line for one.
async fn process_queued(received: Received) -> Result<Encoded, PhotoError> {
    let (reply, done) = tokio::sync::oneshot::channel();
    WORKERS.send((received, reply)).map_err(|_| PhotoError::Failed)?;
    done.await.map_err(|_| PhotoError::Failed)?
}

/// Reads `received` and processes it.
fn process_received(received: &Received) -> Result<Encoded, PhotoError> {
    let bytes = std::fs::read(&received.path).map_err(|e| {
        tracing::error!(error = %e, "reading a received photo failed");
        PhotoError::Failed
    })?;
    process(&bytes)
}

/// The height of a `w`×`h` image scaled to `width`, sides in proportion.
fn height_at(w: u32, h: u32, width: u32) -> u32 {
    ((u64::from(h) * u64::from(width)) / u64::from(w)).max(1) as u32
}

/// `img` scaled down to `width` (kept as it is when not wider).
fn fit(img: &RgbImage, width: u32) -> RgbImage {
    if img.width() <= width {
        return img.clone();
    }
    image::imageops::thumbnail(img, width, height_at(img.width(), img.height(), width))
}

/// The full-size photo of the camera's `pixels`: at most [`FULL_WIDTH`] wide once turned upright
/// by its EXIF `orientation`. It is scaled before it is turned, so only the small image is
/// copied (turning a portrait phone photo first copied all its pixels once more).
fn upright_fit(pixels: RgbImage, orientation: Orientation) -> RgbImage {
    let turned = matches!(orientation, Orientation::Rotate90 | Orientation::Rotate270 | Orientation::Rotate90FlipH | Orientation::Rotate270FlipH);
    let (upright_w, upright_h) = if turned { (pixels.height(), pixels.width()) } else { (pixels.width(), pixels.height()) };
    let width = upright_w.min(FULL_WIDTH);
    let height = height_at(upright_w, upright_h, width);
    let scaled = if (width, height) == (upright_w, upright_h) {
        pixels
    } else {
        // The camera's pixels end with this block.
        let camera = pixels;
        let (w, h) = if turned { (height, width) } else { (width, height) };
        image::imageops::thumbnail(&camera, w, h)
    };
    let mut img = DynamicImage::ImageRgb8(scaled);
    img.apply_orientation(orientation);
    img.into_rgb8()
}

/// Checks and re-encodes one photo. CPU-bound: uploads call it on a photo worker
/// ([`process_queued`]).
pub fn process(bytes: &[u8]) -> Result<Encoded, PhotoError> {
    let kind = domain::image::sniff(&bytes[..bytes.len().min(domain::image::SNIFF_LEN)]).map_err(PhotoError::Type)?;
    let format = format_of(kind);
    // The header alone, before any pixel is decoded.
    let (w, h) = ImageReader::with_format(Cursor::new(bytes), format).into_dimensions().map_err(|_| PhotoError::Broken)?;
    if w > MAX_SIDE || h > MAX_SIDE || u64::from(w) * u64::from(h) > MAX_PIXELS {
        return Err(PhotoError::TooManyPixels);
    }
    if w.min(h) < MIN_SIDE {
        return Err(PhotoError::TooSmall);
    }
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits());
    let mut decoder = reader.into_decoder().map_err(|_| PhotoError::Broken)?;
    let orientation = decoder.orientation().unwrap_or(Orientation::NoTransforms);
    let full_img = upright_fit(DynamicImage::from_decoder(decoder).map_err(|_| PhotoError::Broken)?.into_rgb8(), orientation);
    let encode = |img: &RgbImage| -> Vec<u8> { webp::Encoder::from_rgb(img.as_raw(), img.width(), img.height()).encode(QUALITY).to_vec() };
    let full = encode(&full_img);
    // The srcset widths (all below the full width) are made from the full size, which is faster.
    let mut sized = Vec::with_capacity(PHOTO_WIDTHS.len());
    for width in PHOTO_WIDTHS {
        sized.push((width, encode(&fit(&full_img, width))));
    }
    Ok(Encoded { width: full_img.width(), height: full_img.height(), full, sized })
}

/// Reads a one-photo form: the text fields sent before the file field `file_field`, and that
/// file (read with [`read_field`]). A file input left empty counts as no file.
pub async fn receive_one(mp: Result<Multipart, MultipartRejection>, file_field: &str) -> (HashMap<String, String>, Result<Received, PhotoError>) {
    let mut texts = HashMap::new();
    let Ok(mut mp) = mp else { return (texts, Err(PhotoError::Missing)) };
    loop {
        match mp.next_field().await {
            Ok(Some(f)) if f.name() == Some(file_field) => {
                if f.file_name().is_none_or(str::is_empty) {
                    continue;
                }
                return (texts, read_field(f).await);
            }
            Ok(Some(f)) => {
                let name = f.name().unwrap_or_default().to_owned();
                texts.insert(name, f.text().await.unwrap_or_default());
            }
            Ok(None) => return (texts, Err(PhotoError::Missing)),
            Err(e) if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => return (texts, Err(PhotoError::TooLarge)),
            Err(_) => return (texts, Err(PhotoError::Malformed)),
        }
    }
}

/// Reads a form of up to `max` photos: its text fields, and each file of the file field
/// `file_field` in the order sent (each read with [`read_field`]; file inputs left empty are not
/// counted). More than `max` files: the files after the `max`th are not read, and the third value
/// says so.
pub async fn receive_some(
    mp: Result<Multipart, MultipartRejection>,
    file_field: &str,
    max: usize,
) -> (HashMap<String, String>, Vec<Result<Received, PhotoError>>, bool) {
    let mut texts = HashMap::new();
    let mut files = Vec::new();
    let mut too_many = false;
    let Ok(mut mp) = mp else { return (texts, vec![Err(PhotoError::Malformed)], false) };
    loop {
        match mp.next_field().await {
            Ok(Some(f)) if f.name() == Some(file_field) => {
                if f.file_name().is_none_or(str::is_empty) {
                    continue;
                }
                if files.len() == max {
                    too_many = true;
                    continue;
                }
                files.push(read_field(f).await);
            }
            Ok(Some(f)) => {
                let name = f.name().unwrap_or_default().to_owned();
                texts.insert(name, f.text().await.unwrap_or_default());
            }
            Ok(None) => return (texts, files, too_many),
            Err(e) if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => {
                files.push(Err(PhotoError::TooLarge));
                return (texts, files, too_many);
            }
            Err(_) => {
                files.push(Err(PhotoError::Malformed));
                return (texts, files, too_many);
            }
        }
    }
}

/// A photo file as it was received, written to a file of the temporary directory while it
/// arrived, and deleted with this value. A request body is never held in memory whole: eight
/// sellers sending 3 MB photos at once held each body in growing buffers of the runtime's threads,
/// freed later on a photo worker, and the allocator kept most of them.
#[derive(Debug)]
pub struct Received {
    path: PathBuf,
    len: usize,
}

/// Names of received files: this prefix, then the process and a count.
const SPOOL_PREFIX: &str = "usedcar-photo-";

/// Received files older than this are left from a server that stopped mid-upload, seconds.
const SPOOL_STALE_SECS: u64 = 3_600;

impl Received {
    /// Whether the file was empty (a file input left empty).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    async fn create() -> Result<(Received, tokio::fs::File), PhotoError> {
        static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("{SPOOL_PREFIX}{}-{n}.part", std::process::id()));
        match tokio::fs::OpenOptions::new().write(true).create_new(true).open(&path).await {
            Ok(file) => Ok((Received { path, len: 0 }, file)),
            Err(e) => {
                tracing::error!(error = %e, path = %path.display(), "could not create a file for a received photo");
                Err(PhotoError::Failed)
            }
        }
    }
}

impl Drop for Received {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

async fn write(file: &mut tokio::fs::File, bytes: &[u8]) -> Result<(), PhotoError> {
    file.write_all(bytes).await.map_err(|e| {
        // A full disk among others: the visitor is asked to try again.
        tracing::error!(error = %e, "writing a received photo failed");
        PhotoError::Failed
    })
}

async fn finish(mut file: tokio::fs::File) -> Result<(), PhotoError> {
    file.flush().await.map_err(|e| {
        tracing::error!(error = %e, "writing a received photo failed");
        PhotoError::Failed
    })
}

/// Removes received files a stopped server left behind (older than an hour). Returns how many.
pub fn sweep_received() -> usize {
    let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else { return 0 };
    let stale = |e: &std::fs::DirEntry| {
        e.file_name().to_str().is_some_and(|n| n.starts_with(SPOOL_PREFIX) && n.ends_with(".part"))
            && e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok()).is_some_and(|age| age.as_secs() > SPOOL_STALE_SECS)
    };
    dir.flatten().filter(stale).filter(|e| std::fs::remove_file(e.path()).is_ok()).count()
}

/// Reads one multipart file field in chunks into a [`Received`] file, refusing it as soon as it
/// passes [`MAX_BYTES`].
pub async fn read_field(mut field: Field<'_>) -> Result<Received, PhotoError> {
    let (mut received, mut file) = Received::create().await?;
    loop {
        match field.chunk().await {
            Ok(Some(chunk)) => {
                if received.len + chunk.len() > MAX_BYTES {
                    return Err(PhotoError::TooLarge);
                }
                write(&mut file, &chunk).await?;
                received.len += chunk.len();
            }
            Ok(None) => {
                finish(file).await?;
                return Ok(received);
            }
            // The body limit of the route ends the stream with an error once crossed.
            Err(e) if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => return Err(PhotoError::TooLarge),
            Err(_) => return Err(PhotoError::Broken),
        }
    }
}

/// Reads a request body that is one photo's bytes (the dealer API's upload) into a
/// [`Received`] file, refusing it as soon as it passes [`MAX_BYTES`].
pub async fn read_body(body: axum::body::Body) -> Result<Received, PhotoError> {
    use axum::body::HttpBody as _;
    let (mut received, mut file) = Received::create().await?;
    let mut body = std::pin::pin!(body);
    while let Some(frame) = std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
        let Ok(data) = frame.map_err(|_| PhotoError::Broken)?.into_data() else { continue };
        if received.len + data.len() > MAX_BYTES {
            return Err(PhotoError::TooLarge);
        }
        write(&mut file, &data).await?;
        received.len += data.len();
    }
    finish(file).await?;
    Ok(received)
}

/// How long a photo's address may take to answer in full.
pub const FETCH_WAIT: Duration = Duration::from_secs(10);

pub use crate::services::outbound::Reach;

/// Fetches the photo at `url` (the dealer API's photo by its address) into a [`Received`] file,
/// refusing it as soon as it passes [`MAX_BYTES`]. Only where [`Reach`] allows, from the address
/// that was checked, and without following a redirect (`outbound::pinned`): a URL given to the
/// API cannot reach the server's own network. A refusal is the Chinese reason.
pub async fn fetch(url: &str, reach: Reach) -> Result<Received, Result<PhotoError, String>> {
    let say = |m: &str| Err(Err(m.to_owned()));
    let (client, parsed) = crate::services::outbound::pinned(url, reach, "图片地址", FETCH_WAIT).await.map_err(Err)?;
    let Ok(mut res) = client.get(parsed).send().await else { return say("无法下载图片地址，请检查地址能否公开访问") };
    let status = res.status();
    if status.is_redirection() {
        return say("图片地址发生了跳转，请提供图片的最终地址");
    }
    if !status.is_success() {
        return Err(Err(format!("图片地址返回错误（HTTP {}）", status.as_u16())));
    }
    if res.content_length().is_some_and(|n| n > MAX_BYTES as u64) {
        return Err(Ok(PhotoError::TooLarge));
    }
    let (mut received, mut file) = Received::create().await.map_err(Ok)?;
    loop {
        match res.chunk().await {
            Ok(Some(data)) => {
                if received.len + data.len() > MAX_BYTES {
                    return Err(Ok(PhotoError::TooLarge));
                }
                write(&mut file, &data).await.map_err(Ok)?;
                received.len += data.len();
            }
            Ok(None) => break,
            Err(_) => return say("下载图片时连接中断，请重试"),
        }
    }
    finish(file).await.map_err(Ok)?;
    Ok(received)
}

/// A stored upload as the forms see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The id the browser holds.
    pub token: String,
    /// Storage key of the full-size WebP (`p/202611/{hex}.webp`).
    pub path: String,
}

fn keys(path: &str) -> Vec<String> {
    let stem = path.trim_end_matches(".webp");
    std::iter::once(path.to_owned()).chain(PHOTO_WIDTHS.iter().map(|w| format!("{stem}_w{w}.webp"))).collect()
}

/// Deletes a photo's files; whether all are gone.
async fn delete_all(storage: &Storage, path: &str) -> bool {
    let mut all = true;
    for key in keys(path) {
        if let Err(e) = storage.delete(&key).await {
            tracing::warn!(key, error = %e, "could not delete a photo file");
            all = false;
        }
    }
    all
}

/// How long a visitor waits for a photo's files to reach the storage: a bucket that hangs is
/// answered with 照片保存失败，请重试 within this, not after the object store's own timeouts (30 s
/// a request, and as long again for each file removed after it).
pub const STORE_WAIT: Duration = Duration::from_secs(4);

/// An optional photo field as [`receive_one`] read it: `None` when no file was chosen, else the
/// photo, or why it was refused.
pub fn optional(file: Result<Received, PhotoError>) -> Result<Option<Received>, PhotoError> {
    match file {
        Ok(received) => Ok(Some(received)),
        Err(PhotoError::Missing) => Ok(None),
        Err(e) => Err(e),
    }
}

/// [`ingest`] of an optional photo: its stored path, or empty when there is none.
pub async fn ingest_optional(state: &AppState, user_id: i64, photo: Option<Received>) -> Result<String, PhotoError> {
    match photo {
        Some(received) => Ok(ingest(state, user_id, received).await?.path),
        None => Ok(String::new()),
    }
}

/// Processes and stores one photo for `user_id`: the row first, then the files, within
/// [`STORE_WAIT`]. On a failure the visitor is answered at once and the files written so far are
/// removed in the background, then the row; if the storage still fails, the row stays and the
/// orphan cleanup ([`cleanup_orphans`]) removes both later, so no file is left without a row.
pub async fn ingest(state: &AppState, user_id: i64, photo: Received) -> Result<Stored, PhotoError> {
    let now = state.clock.now();
    let today = state.store.uploads_since(user_id, now - 86_400).await.map_err(|_| PhotoError::Failed)?;
    if today >= UPLOADS_PER_DAY {
        return Err(PhotoError::Quota);
    }
    let encoded = process_queued(photo).await?;
    let token = state.random_id().map_err(|_| PhotoError::Failed)?;
    let path = format!("p/{}/{}.webp", chrono::DateTime::from_timestamp(now, 0).map_or_else(|| "000000".to_owned(), |d| d.format("%Y%m").to_string()), token);
    let total = encoded.bytes();
    let upload = &store::NewUpload { token: &token, user_id, path: &path, width: encoded.width as i32, height: encoded.height as i32, bytes: total as i64 };
    let upload_id = state.store.record_upload(upload, now).await.map_err(|e| {
        tracing::error!(error = %e, "recording an upload failed");
        PhotoError::Failed
    })?;
    let mut files = vec![(path.clone(), encoded.full)];
    let stem = path.trim_end_matches(".webp").to_owned();
    files.extend(encoded.sized.into_iter().map(|(w, b)| (format!("{stem}_w{w}.webp"), b)));
    let put_all = async {
        for (key, body) in files {
            state.storage.put(&key, body, "image/webp").await.map_err(|e| format!("{key}: {e}"))?;
        }
        Ok::<(), String>(())
    };
    let failure = match tokio::time::timeout(STORE_WAIT, put_all).await {
        Ok(Ok(())) => return Ok(Stored { token, path }),
        Ok(Err(e)) => e,
        Err(_) => format!("no answer from the storage within {} s", STORE_WAIT.as_secs()),
    };
    tracing::error!(path, error = %failure, "photo storage failed");
    let state = state.clone();
    tokio::spawn(async move {
        if delete_all(&state.storage, &path).await {
            let _ = state.store.delete_upload(upload_id).await;
        }
    });
    Err(PhotoError::Failed)
}

/// Deletes uploads that no listing uses, older than [`ORPHAN_AFTER_SECS`]: files, then rows.
/// Safe on several nodes at once (deleting twice is harmless). Returns how many were removed.
pub async fn cleanup_orphans(state: &AppState, now: i64) -> Result<usize, store::DbError> {
    let orphans = state.store.orphan_uploads(now - ORPHAN_AFTER_SECS, 500).await?;
    for (id, path) in &orphans {
        // The row goes only with its files: a storage that fails now is tried again next round.
        if delete_all(&state.storage, path).await {
            state.store.delete_upload(*id).await?;
        }
    }
    Ok(orphans.len())
}

/// Deletes the files of uploads whose rows were just removed with a listing.
pub async fn delete_files(state: &AppState, paths: &[String]) {
    for path in paths {
        delete_all(&state.storage, path).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(w: u32, h: u32) -> Vec<u8> {
        let img = RgbImage::from_fn(w, h, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, 90]));
        let mut out = Cursor::new(Vec::new());
        img.write_to(&mut out, ImageFormat::Jpeg).unwrap();
        out.into_inner()
    }

    /// A JPEG with an EXIF APP1 segment: orientation 6 (rotate 90° clockwise) and a GPS tag.
    fn jpeg_with_exif(w: u32, h: u32) -> Vec<u8> {
        let plain = jpeg(w, h);
        // TIFF header (little endian), IFD0 with Orientation=6 and a GPSInfo pointer.
        let mut tiff = vec![b'I', b'I', 42, 0, 8, 0, 0, 0, 2, 0];
        tiff.extend([0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0]);
        tiff.extend([0x25, 0x88, 4, 0, 1, 0, 0, 0, 38, 0, 0, 0]);
        tiff.extend([0, 0, 0, 0]);
        // GPS IFD: one entry, GPSLatitudeRef = "N".
        tiff.extend([1, 0, 1, 0, 2, 0, 2, 0, 0, 0, b'N', 0, 0, 0, 0, 0, 0, 0]);
        let mut app1 = b"Exif\0\0".to_vec();
        app1.extend(tiff);
        let len = (app1.len() + 2) as u16;
        let mut out = vec![0xFF, 0xD8, 0xFF, 0xE1];
        out.extend(len.to_be_bytes());
        out.extend(app1);
        out.extend(&plain[2..]);
        out
    }

    #[test]
    fn a_phone_photo_is_turned_upright_and_stripped() {
        let src = jpeg_with_exif(640, 480);
        assert!(src.windows(4).any(|w| w == b"Exif"));
        let out = process(&src).unwrap();
        assert_eq!((out.width, out.height), (480, 640), "orientation 6 turns landscape into portrait");
        for bytes in std::iter::once(&out.full).chain(out.sized.iter().map(|(_, b)| b)) {
            assert_eq!(&bytes[..4], b"RIFF");
            assert_eq!(&bytes[8..12], b"WEBP");
            assert!(!bytes.windows(4).any(|w| w == b"EXIF" || w == b"Exif"), "no metadata is written");
        }
        let widths: Vec<u32> = out.sized.iter().map(|(w, _)| *w).collect();
        assert_eq!(widths, PHOTO_WIDTHS);
        // A large portrait photo is scaled to the full width of its upright side.
        let big = process(&jpeg_with_exif(2400, 1800)).unwrap();
        assert_eq!((big.width, big.height), (FULL_WIDTH, 2133));
    }

    #[tokio::test]
    async fn a_received_file_lasts_as_long_as_its_photo_and_leftovers_are_swept() {
        let (received, file) = Received::create().await.unwrap();
        finish(file).await.unwrap();
        let path = received.path.clone();
        assert!(path.exists() && received.is_empty());
        drop(received);
        assert!(!path.exists(), "the file goes with the photo, whatever became of it");
        // A file a killed server left an hour ago is swept; one being received is not.
        let (left, file) = Received::create().await.unwrap();
        file.into_std().await.set_modified(std::time::SystemTime::now() - Duration::from_secs(SPOOL_STALE_SECS + 60)).unwrap();
        let (fresh, _) = Received::create().await.unwrap();
        let (left_path, fresh_path) = (left.path.clone(), fresh.path.clone());
        std::mem::forget(left);
        assert!(sweep_received() >= 1);
        assert!(!left_path.exists() && fresh_path.exists());
    }

    #[test]
    fn sizes_and_types_are_checked_before_decoding() {
        assert_eq!(process(b"").unwrap_err(), PhotoError::Type(SniffError::Empty));
        assert_eq!(process(b"<svg xmlns='http://www.w3.org/2000/svg'/>").unwrap_err(), PhotoError::Type(SniffError::Unsupported));
        assert_eq!(process(&jpeg(200, 150)).unwrap_err(), PhotoError::TooSmall);
        // A PNG header claiming 30000×30000 pixels, with no pixel data behind it.
        let mut bomb = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, b'I', b'H', b'D', b'R'];
        bomb.extend(30_000u32.to_be_bytes());
        bomb.extend(30_000u32.to_be_bytes());
        bomb.extend([8, 2, 0, 0, 0]);
        let crc = crc32(&bomb[12..29]);
        bomb.extend(crc.to_be_bytes());
        // The start of a deflate stream of zeros, as a real bomb would carry.
        let idat = [b'I', b'D', b'A', b'T', 0x78, 0x9C, 0xED, 0xC1, 0x01, 0x0D, 0x00, 0x00, 0x00, 0xC2, 0xA0, 0xF7];
        bomb.extend(12u32.to_be_bytes());
        bomb.extend(idat);
        bomb.extend(crc32(&idat).to_be_bytes());
        assert_eq!(process(&bomb).unwrap_err(), PhotoError::TooManyPixels);
        let mut truncated = jpeg(800, 600);
        truncated.truncate(300);
        assert_eq!(process(&truncated).unwrap_err(), PhotoError::Broken);
        let big = process(&jpeg(2400, 1800)).unwrap();
        assert_eq!((big.width, big.height), (FULL_WIDTH, 1200));
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn every_message_is_chinese() {
        assert_eq!(PhotoError::TooLarge.message(), "照片不能超过10MB");
        assert_eq!(PhotoError::TooMany.message(), "最多上传30张照片");
        assert!(keys("p/202611/ab.webp").contains(&"p/202611/ab_w320.webp".to_owned()));
    }
}

//! Where uploaded photos live: a local directory (the default, served by `/upload/{*key}`) or an
//! S3-compatible bucket (AWS S3, Alibaba OSS, Tencent COS, MinIO) through `object_store`'s S3
//! client (signed requests, virtual-hosted or path-style addressing, retries, multipart uploads
//! of large files), in which case `upload.base` points at the bucket's public URL or CDN.
//!
//! Keys are made by the server only (see [`valid_key`]); a key from a request is checked before
//! it reaches the file system or the bucket.

use std::path::PathBuf;

use std::sync::Arc;
use std::time::Duration;

use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as ObjectPath;
use object_store::{Attribute, Attributes, ObjectStore as _, ObjectStoreExt as _, PutOptions, PutPayload, RetryConfig, WriteMultipart};

use crate::config::{Config, S3Style};

/// A storage failure; the cause is logged, the visitor sees a generic retry message.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A local file operation failed.
    #[error("file: {0}")]
    Io(#[from] std::io::Error),
    /// The object store answered with an error or could not be reached.
    #[error("object store: {0}")]
    Remote(String),
    /// A key the server would never make.
    #[error("invalid key")]
    InvalidKey,
}

/// The configured storage.
#[derive(Debug, Clone)]
pub enum Storage {
    /// Files under a directory.
    Local(PathBuf),
    /// An S3-compatible bucket.
    S3(Arc<AmazonS3>),
    /// A bucket the configuration cannot describe (`usedcar serve` refuses to start so; this is
    /// for a state made without that check): every operation fails with the reason.
    Unusable(String),
}

/// Files at least this large go up in parts (a call recording can be; a photo is not).
pub const MULTIPART_FROM: usize = 8 << 20;

/// The endpoint `object_store` is given: with virtual-hosted addressing the bucket is the first
/// label of the host (`https://ershouche.oss-cn-hangzhou.aliyuncs.com`, which Alibaba OSS and new
/// Tencent COS buckets require), with path style the endpoint as configured (the bucket then
/// goes in the path: MinIO, a local test store).
pub fn endpoint_for(endpoint: &str, bucket: &str, style: S3Style) -> String {
    let endpoint = endpoint.trim().trim_end_matches('/');
    match (style, endpoint.split_once("://")) {
        (S3Style::Virtual, Some((scheme, host))) if !host.starts_with(&format!("{bucket}.")) => format!("{scheme}://{bucket}.{host}"),
        _ => endpoint.to_owned(),
    }
}

/// The bucket a configuration names, or why it cannot be used.
fn bucket(config: &Config) -> Result<AmazonS3, object_store::Error> {
    let s3 = &config.s3;
    let endpoint = endpoint_for(&s3.endpoint, &s3.bucket, s3.style);
    AmazonS3Builder::new()
        .with_endpoint(&endpoint)
        .with_allow_http(endpoint.starts_with("http://"))
        .with_virtual_hosted_style_request(s3.style == S3Style::Virtual)
        .with_bucket_name(&s3.bucket)
        .with_region(&s3.region)
        .with_access_key_id(&s3.access_key_id)
        .with_secret_access_key(s3.secret_access_key.expose())
        // A visitor waits on an upload: a few quick retries, not object_store's three minutes.
        .with_retry(RetryConfig { max_retries: 3, retry_timeout: Duration::from_secs(20), ..RetryConfig::default() })
        .build()
}

fn remote(e: &object_store::Error) -> StorageError {
    StorageError::Remote(e.to_string())
}

/// Whether `key` is one the server makes: lower-case letters, digits, `_`, `-`, `.` and `/`
/// between non-empty segments, none of them `.` or `..`, at most 200 characters.
pub fn valid_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 200
        && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'.' | b'/'))
        && key.split('/').all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

impl Storage {
    /// The storage a configuration names, or [`Storage::Unusable`] saying why not.
    pub fn from_config(config: &Config) -> Storage {
        Storage::try_from_config(config).unwrap_or_else(Storage::Unusable)
    }

    /// The storage a configuration names (`upload.storage = "local"` or `"s3"`); a bucket the
    /// configuration cannot describe stops the start.
    pub fn try_from_config(config: &Config) -> Result<Storage, String> {
        if config.upload.storage == crate::config::Storage::S3 {
            bucket(config).map(|b| Storage::S3(Arc::new(b))).map_err(|e| format!("s3: {e}"))
        } else {
            Ok(Storage::Local(PathBuf::from(&config.upload.dir)))
        }
    }

    /// Stores `bytes` under `key`, replacing what was there.
    pub async fn put(&self, key: &str, bytes: Vec<u8>, content_type: &str) -> Result<(), StorageError> {
        if !valid_key(key) {
            return Err(StorageError::InvalidKey);
        }
        match self {
            Storage::Local(root) => {
                let path = root.join(key);
                if let Some(dir) = path.parent() {
                    tokio::fs::create_dir_all(dir).await?;
                }
                // Written beside and renamed, so a reader never sees half a file.
                let tmp = path.with_extension("part");
                let written = match tokio::fs::write(&tmp, &bytes).await {
                    Ok(()) => tokio::fs::rename(&tmp, &path).await,
                    Err(e) => Err(e),
                };
                if written.is_err() {
                    // A full disk leaves part of the file: no name would ever delete it.
                    let _ = tokio::fs::remove_file(&tmp).await;
                }
                Ok(written?)
            }
            Storage::S3(store) => {
                let path = ObjectPath::from(key);
                let mut attributes = Attributes::new();
                attributes.insert(Attribute::ContentType, content_type.to_owned().into());
                if bytes.len() < MULTIPART_FROM {
                    let opts = PutOptions { attributes, ..PutOptions::default() };
                    store.put_opts(&path, PutPayload::from(bytes), opts).await.map_err(|e| remote(&e))?;
                } else {
                    let upload = store.put_multipart_opts(&path, attributes.into()).await.map_err(|e| remote(&e))?;
                    let mut parts = WriteMultipart::new(upload);
                    parts.write(&bytes);
                    parts.finish().await.map_err(|e| remote(&e))?;
                }
                Ok(())
            }
            Storage::Unusable(why) => Err(StorageError::Remote(why.clone())),
        }
    }

    /// Removes `key`; a key that is already gone is not an error.
    pub async fn delete(&self, key: &str) -> Result<(), StorageError> {
        if !valid_key(key) {
            return Err(StorageError::InvalidKey);
        }
        match self {
            Storage::Local(root) => match tokio::fs::remove_file(root.join(key)).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
                _ => Ok(()),
            },
            Storage::S3(store) => match store.delete(&ObjectPath::from(key)).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(remote(&e)),
            },
            Storage::Unusable(why) => Err(StorageError::Remote(why.clone())),
        }
    }

    /// Reads `key` from a local directory (`None` when missing, or when objects are served by
    /// the object store's own host).
    pub async fn read_local(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        let Storage::Local(root) = self else { return Ok(None) };
        if !valid_key(key) {
            return Ok(None);
        }
        match tokio::fs::read(root.join(key)).await {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Reads `key` wherever it is kept (`None` when missing): private files such as call
    /// recordings, which are never served from a public URL.
    pub async fn read(&self, key: &str) -> Result<Option<Vec<u8>>, StorageError> {
        match self {
            Storage::Local(_) => self.read_local(key).await,
            Storage::S3(store) => {
                if !valid_key(key) {
                    return Ok(None);
                }
                match store.get(&ObjectPath::from(key)).await {
                    Ok(got) => Ok(Some(got.bytes().await.map_err(|e| remote(&e))?.to_vec())),
                    Err(object_store::Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(remote(&e)),
                }
            }
            Storage::Unusable(why) => Err(StorageError::Remote(why.clone())),
        }
    }

    /// Whether a key exists (tests and the cleanup job's report).
    pub async fn exists(&self, key: &str) -> bool {
        match self {
            Storage::Local(root) => valid_key(key) && tokio::fs::try_exists(root.join(key)).await.unwrap_or(false),
            Storage::S3(store) => valid_key(key) && store.head(&ObjectPath::from(key)).await.is_ok(),
            Storage::Unusable(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_hosted_buckets_are_the_first_label_of_the_host() {
        let oss = "https://oss-cn-hangzhou.aliyuncs.com/";
        assert_eq!(endpoint_for(oss, "ershouche", S3Style::Virtual), "https://ershouche.oss-cn-hangzhou.aliyuncs.com");
        assert_eq!(
            endpoint_for("https://ershouche.oss-cn-hangzhou.aliyuncs.com", "ershouche", S3Style::Virtual),
            "https://ershouche.oss-cn-hangzhou.aliyuncs.com"
        );
        assert_eq!(endpoint_for("http://127.0.0.1:9000", "photos", S3Style::Path), "http://127.0.0.1:9000");
    }

    /// A large file goes up in parts: started, sent in 5 MB parts, completed; read back whole.
    #[tokio::test]
    async fn large_files_go_to_the_bucket_in_parts() {
        use wiremock::matchers::{method, path, query_param};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::start().await;
        let key = "/photos/rec/202611/call.wav";
        let xml = |body: &str| ResponseTemplate::new(200).set_body_string(body.to_owned()).insert_header("content-type", "application/xml");
        Mock::given(method("POST"))
            .and(path(key))
            .and(query_param("uploads", ""))
            .respond_with(xml(
                "<InitiateMultipartUploadResult><Bucket>photos</Bucket><Key>rec/202611/call.wav</Key><UploadId>U1</UploadId></InitiateMultipartUploadResult>",
            ))
            .mount(&server)
            .await;
        Mock::given(method("PUT"))
            .and(path(key))
            .and(query_param("uploadId", "U1"))
            .respond_with(ResponseTemplate::new(200).insert_header("etag", "\"p\""))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .and(path(key))
            .and(query_param("uploadId", "U1"))
            .respond_with(xml(
                "<CompleteMultipartUploadResult><Bucket>photos</Bucket><Key>rec/202611/call.wav</Key><ETag>\"all\"</ETag></CompleteMultipartUploadResult>",
            ))
            .mount(&server)
            .await;
        let mut config = Config::defaults(crate::config::Env::Development);
        config.upload.storage = crate::config::Storage::S3;
        (config.s3.endpoint, config.s3.bucket, config.s3.style) = (server.uri(), "photos".to_owned(), S3Style::Path);
        (config.s3.access_key_id, config.s3.secret_access_key) = ("AKID".to_owned(), crate::config::Secret::new("s"));
        let storage = Storage::try_from_config(&config).unwrap();
        storage.put("rec/202611/call.wav", vec![7; MULTIPART_FROM + 1], "audio/wav").await.unwrap();
        let got = server.received_requests().await.unwrap();
        let parts = got.iter().filter(|r| r.method.as_str() == "PUT").map(|r| r.body.len()).collect::<Vec<_>>();
        assert_eq!(parts.iter().sum::<usize>(), MULTIPART_FROM + 1, "every byte sent once: {parts:?}");
        assert!(parts.len() >= 2, "in parts: {parts:?}");
        assert_eq!(got.first().map(|r| r.method.as_str()), Some("POST"));
        assert_eq!(got.last().map(|r| r.url.query()), Some(Some("uploadId=U1")), "completed");
    }

    #[test]
    fn only_server_made_keys_pass() {
        assert!(valid_key("p/202611/0123abcd_w320.webp"));
        for bad in ["", "../x.jpg", "p/../../etc/passwd", "/abs.webp", "p//x.webp", "P/X.webp", "p/x y.webp", "p/./x.webp", "p\\x.webp", &"a".repeat(201)] {
            assert!(!valid_key(bad), "{bad}");
        }
    }

    #[tokio::test]
    async fn local_files_are_written_whole_read_and_deleted() {
        let root = std::env::temp_dir().join(format!("usedcar-storage-{}", crate::random::hex_id().unwrap()));
        let s = Storage::Local(root.clone());
        s.put("p/202611/a.webp", b"RIFF".to_vec(), "image/webp").await.unwrap();
        assert_eq!(s.read_local("p/202611/a.webp").await.unwrap().as_deref(), Some(&b"RIFF"[..]));
        assert!(!root.join("p/202611/a.part").exists());
        assert!(matches!(s.put("../x.webp", Vec::new(), "image/webp").await, Err(StorageError::InvalidKey)));
        s.delete("p/202611/a.webp").await.unwrap();
        s.delete("p/202611/a.webp").await.unwrap();
        assert_eq!(s.read_local("p/202611/a.webp").await.unwrap(), None);
        let _ = std::fs::remove_dir_all(root);
    }
}

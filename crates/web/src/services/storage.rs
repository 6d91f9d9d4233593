//! Where uploaded photos live: a local directory (the default, served by `/upload/{*key}`) or an
//! S3-compatible object store (AWS S3, Alibaba OSS, Tencent COS, MinIO) spoken to with plain
//! HTTP and AWS Signature Version 4, in which case `upload.base` points at the bucket's
//! public URL or CDN.
//!
//! Keys are made by the server only (see [`valid_key`]); a key from a request is checked before
//! it reaches the file system.

use std::path::PathBuf;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::config::{Config, Secret};

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
    S3(S3),
}

/// An S3-compatible bucket addressed path-style: `{endpoint}/{bucket}/{key}`.
#[derive(Debug, Clone)]
pub struct S3 {
    /// `https://s3.cn-north-1.amazonaws.com.cn`, `https://oss-cn-hangzhou.aliyuncs.com`, ….
    pub endpoint: String,
    /// Bucket name.
    pub bucket: String,
    /// Signing region.
    pub region: String,
    /// Access key id.
    pub access_key_id: String,
    /// Secret access key.
    pub secret_access_key: Secret,
    /// The shared HTTP client.
    pub client: reqwest::Client,
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
    /// The storage a configuration names (`storage = "local"` or `"s3"`).
    pub fn from_config(config: &Config, client: reqwest::Client) -> Storage {
        if config.upload.storage == crate::config::Storage::S3 {
            Storage::S3(S3 {
                endpoint: config.s3.endpoint.trim_end_matches('/').to_owned(),
                bucket: config.s3.bucket.clone(),
                region: config.s3.region.clone(),
                access_key_id: config.s3.access_key_id.clone(),
                secret_access_key: config.s3.secret_access_key.clone(),
                client,
            })
        } else {
            Storage::Local(PathBuf::from(&config.upload.dir))
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
                tokio::fs::write(&tmp, &bytes).await?;
                tokio::fs::rename(&tmp, &path).await?;
                Ok(())
            }
            Storage::S3(s3) => s3.send(reqwest::Method::PUT, key, bytes, content_type).await,
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
            Storage::S3(s3) => s3.send(reqwest::Method::DELETE, key, Vec::new(), "").await,
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
            Storage::S3(s3) => {
                if !valid_key(key) {
                    return Ok(None);
                }
                let res = s3.request(reqwest::Method::GET, key, Vec::new(), "").send().await.map_err(|e| StorageError::Remote(e.to_string()))?;
                match res.status() {
                    reqwest::StatusCode::NOT_FOUND => Ok(None),
                    s if s.is_success() => Ok(Some(res.bytes().await.map_err(|e| StorageError::Remote(e.to_string()))?.to_vec())),
                    s => Err(StorageError::Remote(format!("{s} for {key}"))),
                }
            }
        }
    }

    /// Whether a key exists (tests and the cleanup job's report).
    pub async fn exists(&self, key: &str) -> bool {
        match self {
            Storage::Local(root) => valid_key(key) && tokio::fs::try_exists(root.join(key)).await.unwrap_or(false),
            Storage::S3(_) => false,
        }
    }
}

impl S3 {
    async fn send(&self, method: reqwest::Method, key: &str, body: Vec<u8>, content_type: &str) -> Result<(), StorageError> {
        let res = self.request(method, key, body, content_type).send().await.map_err(|e| StorageError::Remote(e.to_string()))?;
        let status = res.status();
        if status.is_success() || (status == reqwest::StatusCode::NOT_FOUND && content_type.is_empty()) {
            Ok(())
        } else {
            Err(StorageError::Remote(format!("{status} for {key}")))
        }
    }

    /// A signed request for `key`.
    fn request(&self, method: reqwest::Method, key: &str, body: Vec<u8>, content_type: &str) -> reqwest::RequestBuilder {
        let now = chrono::Utc::now();
        let amz_date = now.format("%Y%m%dT%H%M%SZ").to_string();
        let path = format!("/{}/{}", self.bucket, key);
        let host = self.endpoint.split("://").nth(1).unwrap_or(&self.endpoint).to_owned();
        let payload_hash = hex::encode(Sha256::digest(&body));
        let mut headers =
            vec![("host".to_owned(), host), ("x-amz-content-sha256".to_owned(), payload_hash.clone()), ("x-amz-date".to_owned(), amz_date.clone())];
        if !content_type.is_empty() {
            headers.push(("content-type".to_owned(), content_type.to_owned()));
        }
        let auth =
            sigv4_authorization(method.as_str(), &path, &headers, &payload_hash, &amz_date, &self.region, &self.access_key_id, self.secret_access_key.expose());
        let mut req = self.client.request(method, format!("{}{path}", self.endpoint)).header("authorization", auth);
        for (k, v) in headers.iter().filter(|(k, _)| k != "host") {
            req = req.header(k, v);
        }
        req.body(body)
    }
}

type HmacSha256 = Hmac<Sha256>;

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// The `Authorization` header of AWS Signature Version 4 for the `s3` service. `headers` are
/// the signed headers (lower-case names); `path` is already URI-encoded; no query string.
#[expect(clippy::too_many_arguments, reason = "the inputs of the documented algorithm, named as in it")]
pub fn sigv4_authorization(
    method: &str,
    path: &str,
    headers: &[(String, String)],
    payload_hash: &str,
    amz_date: &str,
    region: &str,
    access_key_id: &str,
    secret: &str,
) -> String {
    let mut sorted: Vec<(String, String)> = headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.trim().to_owned())).collect();
    sorted.sort();
    let canonical_headers: String = sorted.iter().map(|(k, v)| format!("{k}:{v}\n")).collect();
    let signed_headers = sorted.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(";");
    let canonical_request = format!("{method}\n{path}\n\n{canonical_headers}\n{signed_headers}\n{payload_hash}");
    let date = &amz_date[..8.min(amz_date.len())];
    let scope = format!("{date}/{region}/s3/aws4_request");
    let string_to_sign = format!("AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}", hex::encode(Sha256::digest(canonical_request.as_bytes())));
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date);
    let k_region = hmac(&k_date, region);
    let k_service = hmac(&k_region, "s3");
    let k_signing = hmac(&k_service, "aws4_request");
    let signature = hex::encode(hmac(&k_signing, &string_to_sign));
    format!("AWS4-HMAC-SHA256 Credential={access_key_id}/{scope},SignedHeaders={signed_headers},Signature={signature}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_documented_example_request() {
        // The GET example of the S3 SigV4 documentation (examplebucket, test.txt, first 10 bytes).
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let headers = vec![
            ("Host".to_owned(), "examplebucket.s3.amazonaws.com".to_owned()),
            ("Range".to_owned(), "bytes=0-9".to_owned()),
            ("x-amz-content-sha256".to_owned(), empty.to_owned()),
            ("x-amz-date".to_owned(), "20130524T000000Z".to_owned()),
        ];
        let auth = sigv4_authorization(
            "GET",
            "/test.txt",
            &headers,
            empty,
            "20130524T000000Z",
            "us-east-1",
            "AKIAIOSFODNN7EXAMPLE",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        );
        assert_eq!(
            auth,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
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

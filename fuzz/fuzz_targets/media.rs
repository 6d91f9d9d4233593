//! Uploaded bytes: the photo and the voice-note sniffers and the audio length readers take any
//! file, truncated or lying about its sizes, without a panic or an overflow.
#![no_main]

use domain::audio::{self, AudioKind};
use domain::image;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let _ = image::sniff(&bytes[..bytes.len().min(image::SNIFF_LEN)]);
    if let Some(kind) = audio::sniff(bytes) {
        let _ = audio::duration_secs(bytes, kind);
    }
    for kind in [AudioKind::Wav, AudioKind::Mp3, AudioKind::Amr] {
        let _ = audio::duration_secs(bytes, kind);
    }
});

//! Call recordings: which audio a call-tracking provider sent (sniffed from the bytes, never
//! from a name or header), how long it lasts, and a generated WAV for demo data.

/// An audio format we keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AudioKind {
    /// RIFF/WAVE (PCM or A-law, as phone platforms record).
    Wav,
    /// MPEG audio layer III.
    Mp3,
    /// AMR narrow-band, the format of many phone recordings; browsers do not play it.
    Amr,
}

impl AudioKind {
    /// The file extension of stored recordings.
    pub fn ext(self) -> &'static str {
        match self {
            AudioKind::Wav => "wav",
            AudioKind::Mp3 => "mp3",
            AudioKind::Amr => "amr",
        }
    }

    /// The `Content-Type`.
    pub fn mime(self) -> &'static str {
        match self {
            AudioKind::Wav => "audio/wav",
            AudioKind::Mp3 => "audio/mpeg",
            AudioKind::Amr => "audio/amr",
        }
    }

    /// The kind of a stored `Content-Type`.
    pub fn from_mime(mime: &str) -> Option<AudioKind> {
        [AudioKind::Wav, AudioKind::Mp3, AudioKind::Amr].into_iter().find(|k| k.mime() == mime)
    }

    /// Whether an `<audio>` element plays it in common browsers (AMR is offered as a download).
    pub fn plays_in_browsers(self) -> bool {
        self != AudioKind::Amr
    }
}

const AMR_MAGIC: &[u8] = b"#!AMR\n";

/// The format of `bytes`, from their first bytes.
pub fn sniff(bytes: &[u8]) -> Option<AudioKind> {
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WAVE" {
        Some(AudioKind::Wav)
    } else if bytes.starts_with(AMR_MAGIC) {
        Some(AudioKind::Amr)
    } else if bytes.starts_with(b"ID3") || mp3_frame(bytes, 0).is_some() {
        Some(AudioKind::Mp3)
    } else {
        None
    }
}

/// The length in whole seconds (rounded), when the file says; `None` for a malformed file.
pub fn duration_secs(bytes: &[u8], kind: AudioKind) -> Option<u32> {
    let millis = match kind {
        AudioKind::Wav => wav_millis(bytes)?,
        AudioKind::Mp3 => mp3_millis(bytes)?,
        AudioKind::Amr => amr_millis(bytes)?,
    };
    u32::try_from((millis + 500) / 1000).ok()
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Walks the RIFF chunks: `fmt ` gives the byte rate, `data` the size.
fn wav_millis(b: &[u8]) -> Option<u64> {
    let (mut at, mut byte_rate, mut data) = (12usize, None, None);
    while at + 8 <= b.len() {
        let size = le32(b, at + 4)? as usize;
        match &b[at..at + 4] {
            b"fmt " => byte_rate = le32(b, at + 16),
            // A recording still being written may claim more than it holds.
            b"data" => data = Some(size.min(b.len() - at - 8)),
            _ => {}
        }
        at = at.checked_add(8 + size + (size & 1))?;
    }
    let rate = u64::from(byte_rate.filter(|r| *r > 0)?);
    Some(data? as u64 * 1000 / rate)
}

/// Bit rate (kbit/s) of the MPEG audio frame header at `at`, for layer III.
fn mp3_frame(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    if h[0] != 0xFF || h[1] & 0xE0 != 0xE0 || (h[1] >> 1) & 3 != 1 {
        return None;
    }
    const V1: [u32; 16] = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0];
    const V2: [u32; 16] = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0];
    let index = usize::from(h[2] >> 4);
    let kbps = if (h[1] >> 3) & 3 == 3 { V1[index] } else { V2[index] };
    (kbps > 0).then_some(kbps)
}

/// Size over the first frame's bit rate (phone platforms record at a constant rate).
fn mp3_millis(b: &[u8]) -> Option<u64> {
    let mut at = 0usize;
    if b.starts_with(b"ID3") && b.len() >= 10 {
        let size = b[6..10].iter().fold(0usize, |acc, x| (acc << 7) | usize::from(x & 0x7F));
        at = 10 + size;
    }
    let kbps = mp3_frame(b, at)?;
    Some((b.len() - at) as u64 * 8 / u64::from(kbps))
}

/// AMR-NB: 20 ms frames whose size follows from the mode in each frame's first byte.
fn amr_millis(b: &[u8]) -> Option<u64> {
    const SIZES: [usize; 16] = [13, 14, 16, 18, 20, 21, 27, 32, 6, 0, 0, 0, 0, 0, 0, 1];
    let (mut at, mut frames) = (AMR_MAGIC.len(), 0u64);
    while at < b.len() {
        let size = SIZES[usize::from((b[at] >> 3) & 0x0F)];
        if size == 0 {
            return None;
        }
        at += size;
        frames += 1;
    }
    Some(frames * 20)
}

/// A mono 8 kHz 8-bit PCM WAV of `secs` seconds: two alternating voice-band tones, so a demo
/// recording sounds like something and differs by `seed`.
pub fn tone_wav(secs: u32, seed: u32) -> Vec<u8> {
    const RATE: u32 = 8_000;
    let samples = RATE * secs;
    let mut out = Vec::with_capacity(44 + samples as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&RATE.to_le_bytes());
    out.extend_from_slice(&RATE.to_le_bytes()); // byte rate: one byte a sample
    out.extend_from_slice(&1u16.to_le_bytes()); // block align
    out.extend_from_slice(&8u16.to_le_bytes()); // bits a sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&samples.to_le_bytes());
    let tones = [330.0 + f64::from(seed % 7) * 20.0, 440.0 + f64::from(seed % 5) * 25.0];
    for i in 0..samples {
        let t = f64::from(i) / f64::from(RATE);
        // 0.6 s of tone, 0.4 s of quiet, the two tones taking turns.
        let slot = (t / 1.0) as usize;
        let within = t - slot as f64;
        let amp = if within < 0.6 { 40.0 * (within * 10.0).min(1.0) * ((0.6 - within) * 10.0).min(1.0) } else { 0.0 };
        let v = 128.0 + amp * (2.0 * std::f64::consts::PI * tones[slot % 2] * t).sin();
        out.push(v.round().clamp(0.0, 255.0) as u8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_wav_is_sniffed_and_timed() {
        let wav = tone_wav(12, 3);
        assert_eq!(sniff(&wav), Some(AudioKind::Wav));
        assert_eq!(duration_secs(&wav, AudioKind::Wav), Some(12));
        assert_eq!(wav.len(), 44 + 12 * 8_000);
        assert_ne!(tone_wav(2, 1), tone_wav(2, 2), "the seed changes the tones");
    }

    #[test]
    fn truncated_wav_counts_what_it_holds() {
        let wav = tone_wav(10, 1);
        assert_eq!(duration_secs(&wav[..44 + 4 * 8_000], AudioKind::Wav), Some(4));
        assert_eq!(duration_secs(&wav[..20], AudioKind::Wav), None, "no byte rate, no length");
    }

    #[test]
    fn mp3_length_follows_the_bit_rate() {
        // MPEG-1 layer III, 64 kbit/s, 44.1 kHz: 8000 bytes a second, behind a 10-byte ID3 tag.
        let mut mp3 = b"ID3\x04\x00\x00\x00\x00\x00\x00".to_vec();
        let frame = [0xFF, 0xFB, 0x50, 0x00];
        mp3.extend(frame.iter().cycle().take(8_000 * 30));
        assert_eq!(sniff(&mp3), Some(AudioKind::Mp3));
        assert_eq!(duration_secs(&mp3, AudioKind::Mp3), Some(30));
        assert_eq!(sniff(&mp3[10..]), Some(AudioKind::Mp3), "a bare frame sync");
    }

    #[test]
    fn amr_counts_twenty_millisecond_frames() {
        let mut amr = AMR_MAGIC.to_vec();
        for _ in 0..250 {
            amr.push(7 << 3); // 12.2 kbit/s mode: 32-byte frames
            amr.extend([0u8; 31]);
        }
        assert_eq!(sniff(&amr), Some(AudioKind::Amr));
        assert_eq!(duration_secs(&amr, AudioKind::Amr), Some(5));
        assert!(!AudioKind::Amr.plays_in_browsers());
        amr.push(9 << 3);
        assert_eq!(duration_secs(&amr, AudioKind::Amr), None, "a reserved mode is malformed");
    }

    #[test]
    fn other_files_are_not_audio() {
        for bytes in [&b"<html>"[..], b"\xFF\xD8\xFF\xE0jpeg", b"RIFF\0\0\0\0WEBPVP8 ", b"", b"\xFF\xFB"] {
            assert_eq!(sniff(bytes), None, "{bytes:?}");
        }
        assert_eq!(AudioKind::from_mime("audio/mpeg"), Some(AudioKind::Mp3));
        assert_eq!(AudioKind::from_mime("image/webp"), None);
    }
}

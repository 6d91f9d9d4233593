// Photo rules for the uploader: downscale sizes, list moves, and the upload itself (XMLHttpRequest,
// for its progress events).
export const MAX_EDGE = 1920;
export const QUALITY = 0.85;

/// The size that fits within maxEdge on both sides, keeping the aspect ratio.
export function fitWithin(width, height, maxEdge = MAX_EDGE) {
  const scale = Math.min(1, maxEdge / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/// Moves item i by delta (−1 left, +1 right) within bounds.
export function move(list, i, delta) {
  const j = i + delta;
  if (j < 0 || j >= list.length) return list;
  const out = list.slice();
  [out[i], out[j]] = [out[j], out[i]];
  return out;
}

/// How many of the picked files fit under the limit, and the message when some do not.
export function admit(current, picked, max) {
  const room = Math.max(0, max - current);
  return { take: Math.min(room, picked), message: picked > room ? `最多上传${max}张照片，已忽略多出的${picked - room}张` : "" };
}

/// Downscales an image file with a canvas; returns the original when it is small enough or the
/// browser cannot decode it (the server then judges it).
export async function downscale(file, maxEdge = MAX_EDGE, quality = QUALITY) {
  if (typeof createImageBitmap !== "function") return file;
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (_) {
    return file;
  }
  const size = fitWithin(bitmap.width, bitmap.height, maxEdge);
  if (size.width === bitmap.width && file.size < 1.5 * 1024 * 1024) return file;
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  canvas.getContext("2d").drawImage(bitmap, 0, 0, size.width, size.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", quality));
  if (!blob) return file;
  return new File([blob], file.name.replace(/\.[^.]*$/, "") + ".jpg", { type: "image/jpeg" });
}

/// Uploads one file; reports progress 0–100; resolves with the server's `data` or rejects with a
/// Chinese message.
export function upload(url, field, file, onProgress, Xhr = XMLHttpRequest) {
  return new Promise((resolve, reject) => {
    const xhr = new Xhr();
    xhr.open("POST", url);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onerror = () => reject(new Error("网络异常，上传失败"));
    xhr.ontimeout = () => reject(new Error("上传超时"));
    xhr.onload = () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch (_) {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300 && body && body.success) resolve(body.data);
      else reject(new Error((body && body.msg) || `上传失败（${xhr.status}）`));
    };
    const data = new FormData();
    data.append(field, file, file.name);
    xhr.send(data);
  });
}

// Form rules shared by the islands, with the seed's mobile-kit messages. The server
// checks the same rules (crates/domain/src/validate.rs); these only answer sooner.
export const MESSAGES = {
  mobileEmpty: "请填写手机号",
  mobileInvalid: "请输入正确的手机号",
  nameEmpty: "请填写姓名",
  nameInvalid: "请输入正确的姓名",
  postalInvalid: "请输入正确的邮政编码",
  areaEmpty: "请选择地区",
  addressEmpty: "请填写详细地址",
  codeEmpty: "请输入验证码",
  codeInvalid: "验证码为6位数字",
};

/// 11 digits, starting with 1, second digit 3–9. Spaces and dashes are ignored.
export function checkMobile(text) {
  const m = String(text || "").replace(/[\s-]/g, "");
  if (!m) return MESSAGES.mobileEmpty;
  return /^1[3-9]\d{9}$/.test(m) ? "" : MESSAGES.mobileInvalid;
}

export function checkCode(text) {
  const c = String(text || "").trim();
  if (!c) return MESSAGES.codeEmpty;
  return /^\d{6}$/.test(c) ? "" : MESSAGES.codeInvalid;
}

/// A person's name: 1–20 characters of Chinese, letters, spaces and the middle dot.
export function checkName(text) {
  const n = String(text || "").trim();
  if (!n) return MESSAGES.nameEmpty;
  return /^[\u4e00-\u9fa5A-Za-z·. ]{1,20}$/.test(n) ? "" : MESSAGES.nameInvalid;
}

export function checkPostal(text) {
  return /^\d{6}$/.test(String(text || "").trim()) ? "" : MESSAGES.postalInvalid;
}

export const checkArea = (code) => (code ? "" : MESSAGES.areaEmpty);
export const checkAddress = (text) => (String(text || "").trim() ? "" : MESSAGES.addressEmpty);

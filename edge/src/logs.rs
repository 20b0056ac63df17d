//! Prints core's structured log records, one JSON line each, for `wrangler tail --format
//! json` and Workers Logs. A leaf: what a record says is core's (`hookonce_core::log`).

use hookonce_core::log::{LogLevel, LogRecord};
use wasm_bindgen::JsValue;
use worker::web_sys::console;

/// Prints `record` if `threshold` (`HOOKONCE_LOG`) lets it through.
pub fn emit(threshold: LogLevel, record: LogRecord) {
    if !record.enabled(threshold) {
        return;
    }
    let line = JsValue::from_str(&record.line);
    match record.level {
        LogLevel::Error => console::error_1(&line),
        LogLevel::Warn => console::warn_1(&line),
        LogLevel::Info | LogLevel::Debug => console::log_1(&line),
    }
}

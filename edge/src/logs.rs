//! Prints core's structured log records, one JSON line each, for `wrangler tail --format
//! json` and Workers Logs. A leaf: what a record says is core's (`hookonce_core::log`).

use hookonce_core::{LogLevel, LogRecord};

/// Prints `record` if `threshold` (`HOOKONCE_LOG`) lets it through.
pub fn emit(threshold: LogLevel, record: LogRecord) {
    if !record.enabled(threshold) {
        return;
    }
    match record.level {
        LogLevel::Error => worker::console_error!("{}", record.fields),
        LogLevel::Info | LogLevel::Debug => worker::console_log!("{}", record.fields),
    }
}

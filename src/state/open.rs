//! Opening a backend by its URL: the one place that knows every kind of backend.

use std::sync::Arc;

use super::backend::Backend;
use super::backend_url::{BackendUrl, Scheme};
use super::error::StateError;
use super::file::FileBackend;
use super::postgres::PgBackend;

/// Opens the backend a URL names (`file://DIR` or `postgres://…`).
pub fn open(url: &BackendUrl) -> Result<Arc<dyn Backend>, StateError> {
    Ok(match url.scheme() {
        Scheme::File(_) => Arc::new(FileBackend::open(url)?),
        Scheme::Postgres(_) => Arc::new(PgBackend::open(url)?),
    })
}

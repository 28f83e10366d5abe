//! A provider factory whose providers take a fixed time in `Diff` (the `sim` provider's
//! `latencyMs` covers create, read, update and delete only), for the parallel-diff figures.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;

use crate::engine::provider::{
    CheckRequest, CheckResult, ConfigureResult, CreateRequest, CreateResult, DeleteRequest,
    DiffRequest, DiffResult, ProviderError, ReadRequest, ReadResult, UpdateRequest,
};
use crate::engine::{PropertyMap, Provider, ProviderFactory, Urn};

/// Wraps a factory: every provider it loads sleeps `delay` before each resource Diff.
pub struct SlowDiffFactory {
    inner: Arc<dyn ProviderFactory>,
    delay: Duration,
}

impl SlowDiffFactory {
    pub fn new(inner: Arc<dyn ProviderFactory>, delay: Duration) -> SlowDiffFactory {
        SlowDiffFactory { inner, delay }
    }
}

impl ProviderFactory for SlowDiffFactory {
    fn load(
        &self,
        package: &str,
        version: Option<&str>,
    ) -> Result<Arc<dyn Provider>, ProviderError> {
        Ok(Arc::new(SlowDiff {
            inner: self.inner.load(package, version)?,
            delay: self.delay,
        }))
    }
}

struct SlowDiff {
    inner: Arc<dyn Provider>,
    delay: Duration,
}

#[async_trait]
impl Provider for SlowDiff {
    async fn check_config(
        &self,
        urn: &Urn,
        olds: &PropertyMap,
        news: &PropertyMap,
    ) -> Result<CheckResult, ProviderError> {
        self.inner.check_config(urn, olds, news).await
    }

    async fn diff_config(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        self.inner.diff_config(req).await
    }

    async fn configure(&self, inputs: &PropertyMap) -> Result<ConfigureResult, ProviderError> {
        self.inner.configure(inputs).await
    }

    async fn check(&self, req: CheckRequest) -> Result<CheckResult, ProviderError> {
        self.inner.check(req).await
    }

    async fn diff(&self, req: DiffRequest) -> Result<DiffResult, ProviderError> {
        tokio::time::sleep(self.delay).await;
        self.inner.diff(req).await
    }

    async fn create(&self, req: CreateRequest) -> Result<CreateResult, ProviderError> {
        self.inner.create(req).await
    }

    async fn read(&self, req: ReadRequest) -> Result<ReadResult, ProviderError> {
        self.inner.read(req).await
    }

    async fn update(&self, req: UpdateRequest) -> Result<PropertyMap, ProviderError> {
        self.inner.update(req).await
    }

    async fn delete(&self, req: DeleteRequest) -> Result<(), ProviderError> {
        self.inner.delete(req).await
    }

    async fn invoke(&self, token: &str, args: &PropertyMap) -> Result<PropertyMap, ProviderError> {
        self.inner.invoke(token, args).await
    }

    async fn cancel(&self) -> Result<(), ProviderError> {
        self.inner.cancel().await
    }
}

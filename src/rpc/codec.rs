//! The protobuf codec of every generated pulumirpc client and server: prost's, except that a
//! message that does not decode is the peer's bad argument (INVALID_ARGUMENT naming the message
//! type), not an internal error of ours.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstEncoder};

/// prost's codec with malformed input reported as INVALID_ARGUMENT.
#[derive(Debug, Clone)]
pub struct StrictCodec<T, U> {
    inner: ProstCodec<T, U>,
}

impl<T, U> Default for StrictCodec<T, U> {
    fn default() -> Self {
        StrictCodec {
            inner: ProstCodec::default(),
        }
    }
}

impl<T, U> Codec for StrictCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = StrictDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        self.inner.encoder()
    }

    fn decoder(&mut self) -> Self::Decoder {
        StrictDecoder(PhantomData)
    }
}

/// Decodes one message; see [`StrictCodec`].
#[derive(Debug)]
pub struct StrictDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for StrictDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        U::decode(buf).map(Some).map_err(|e| {
            let name = std::any::type_name::<U>().rsplit("::").next().unwrap_or("message");
            let hint = if e.to_string().contains("recursion limit") {
                " (values nest deeper than protobuf's limit of 100 messages, about 30 levels of objects)"
            } else {
                ""
            };
            Status::invalid_argument(format!("malformed {name}: {e}{hint}"))
        })
    }
}

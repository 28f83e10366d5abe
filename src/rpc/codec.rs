//! The protobuf codecs of every generated client and server: prost's, except that a message
//! that does not decode is the peer's bad argument (INVALID_ARGUMENT naming the message type),
//! not an internal error of ours; the console protocol's streams also encode into a larger
//! buffer.

use std::marker::PhantomData;

use prost::Message;
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic_prost::{ProstCodec, ProstEncoder};

/// prost's codec with malformed input reported as INVALID_ARGUMENT, encoding into a buffer of
/// `BUFFER` bytes; the services name it through [`StrictCodec`] and [`StreamCodec`].
#[derive(Debug, Clone)]
pub struct BufferedCodec<T, U, const BUFFER: usize>(PhantomData<(T, U)>);

/// The codec of every generated client and server but the console's: tonic's buffer.
pub type StrictCodec<T, U> = BufferedCodec<T, U, DEFAULT_BUFFER>;

/// tonic's own encode buffer.
const DEFAULT_BUFFER: usize = 8 * 1024;

/// Where the console server encodes a watcher's replies: one reply (up to about 32 KiB of
/// events) fits, so it is copied in once; tonic's 8 KiB default grew by doubling, copying each
/// reply again on every growth into freshly faulted memory.
pub(crate) const STREAM_BUFFER: usize = 64 * 1024;

/// Messages gathered into one write before it goes out (tonic's default).
const YIELD: usize = 32 * 1024;

/// [`StrictCodec`] for the console protocol, whose watch streams carry batches of events.
pub type StreamCodec<T, U> = BufferedCodec<T, U, STREAM_BUFFER>;

impl<T, U, const BUFFER: usize> Default for BufferedCodec<T, U, BUFFER> {
    fn default() -> Self {
        BufferedCodec(PhantomData)
    }
}

impl<T, U, const BUFFER: usize> Codec for BufferedCodec<T, U, BUFFER>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = StrictDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::raw_encoder(BufferSettings::new(BUFFER, YIELD))
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

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::codec::Encoder;

    use crate::rpc::console_proto as pb;

    #[test]
    fn a_console_stream_encodes_into_a_buffer_a_full_reply_fits_in() {
        let mut codec = StreamCodec::<pb::WatchReply, pb::WatchRequest>::default();
        let settings = format!("{:?}", codec.encoder().buffer_settings());
        assert!(settings.contains("buffer_size: 65536"), "{settings}");
        let mut strict = StrictCodec::<pb::WatchReply, pb::WatchRequest>::default();
        let settings = format!("{:?}", strict.encoder().buffer_settings());
        assert!(settings.contains("buffer_size: 8192"), "{settings}");
    }
}

package io.jtrace.ipc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.jtrace.protos.IPCFrame;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FrameDecoderTest {
    private final List<IPCFrame> frames = new ArrayList<>();
    private final List<String> malformed = new ArrayList<>();
    private final FrameDecoder.Sink sink = new FrameDecoder.Sink() {
        @Override
        public void frame(IPCFrame frame) {
            frames.add(frame);
        }

        @Override
        public void malformed(String reason) {
            malformed.add(reason);
        }
    };

    static IPCFrame invoke(long requestId, int argsBytes) {
        return IPCFrame.newBuilder()
                .setRequestId(requestId)
                .setMsgInvokeMethod(IPCFrame.InvokeMethod.newBuilder()
                        .setServiceId(1)
                        .setMethodId(2)
                        .setArgsProto(ByteString.copyFrom(new byte[argsBytes])))
                .build();
    }

    static byte[] bytes(IPCFrame... frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (IPCFrame frame : frames) {
            ByteBuffer encoded = RawPeer.encode(frame);
            out.write(encoded.array(), 0, encoded.remaining());
        }
        return out.toByteArray();
    }

    static byte[] header(long length) {
        return new byte[] {(byte) length, (byte) (length >>> 8), (byte) (length >>> 16), (byte) (length >>> 24)};
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.write(part, 0, part.length);
        }
        return out.toByteArray();
    }

    @Test
    void theEncodedLengthIsLittleEndianAndCountsThePayloadOnly() {
        IPCFrame frame = invoke(1, 300);
        byte[] encoded = bytes(frame);
        int size = frame.getSerializedSize();
        assertEquals(size + 4, encoded.length);
        assertEquals(size, (encoded[0] & 0xff) | (encoded[1] & 0xff) << 8 | (encoded[2] & 0xff) << 16 | (encoded[3] & 0xff) << 24);
    }

    @Test
    void framesSplitAtEveryByteBoundaryDecodeWhole() {
        List<IPCFrame> sent = List.of(invoke(1, 10), invoke(2, 0), invoke(3, 5000), invoke(4, 1));
        byte[] stream = bytes(sent.toArray(new IPCFrame[0]));
        for (int split = 0; split <= stream.length; split++) {
            frames.clear();
            FrameDecoder decoder = new FrameDecoder();
            assertTrue(decoder.feed(ByteBuffer.wrap(stream, 0, split), sink));
            assertTrue(decoder.feed(ByteBuffer.wrap(stream, split, stream.length - split), sink));
            assertEquals(sent, frames, "split at " + split);
            assertEquals(0, decoder.bufferedBytes());
        }
        assertTrue(malformed.isEmpty());
    }

    @Test
    void framesFedOneByteAtATimeDecodeWhole() {
        List<IPCFrame> sent = List.of(invoke(1, 7000), invoke(2, 3));
        byte[] stream = bytes(sent.toArray(new IPCFrame[0]));
        FrameDecoder decoder = new FrameDecoder();
        for (byte b : stream) {
            assertTrue(decoder.feed(ByteBuffer.wrap(new byte[] {b}), sink));
        }
        assertEquals(sent, frames);
    }

    @Test
    void manyFramesInOneReadAllDecodeInOrder() {
        IPCFrame[] sent = new IPCFrame[1000];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = invoke(i + 1, i % 50);
        }
        FrameDecoder decoder = new FrameDecoder();
        assertTrue(decoder.feed(ByteBuffer.wrap(bytes(sent)), sink));
        assertEquals(List.of(sent), frames);
    }

    @Test
    void aFrameOfTheLargestAllowedSizeDecodes() {
        IPCFrame probe = invoke(1, FrameDecoder.MAX_PAYLOAD - 20);
        IPCFrame largest = invoke(1, FrameDecoder.MAX_PAYLOAD - 20 + (FrameDecoder.MAX_PAYLOAD - probe.getSerializedSize()));
        assertEquals(FrameDecoder.MAX_PAYLOAD, largest.getSerializedSize());
        FrameDecoder decoder = new FrameDecoder();
        assertTrue(decoder.feed(ByteBuffer.wrap(bytes(largest, invoke(2, 1))), sink));
        assertEquals(List.of(largest, invoke(2, 1)), frames);
    }

    @Test
    void aLengthOverTheLimitStopsTheStreamForGood() {
        FrameDecoder decoder = new FrameDecoder();
        byte[] stream = concat(bytes(invoke(1, 1)), header(FrameDecoder.MAX_PAYLOAD + 1), bytes(invoke(2, 1)));
        assertFalse(decoder.feed(ByteBuffer.wrap(stream), sink));
        assertEquals(FrameDecoder.MAX_PAYLOAD + 1, decoder.oversizeLength());
        assertEquals(List.of(invoke(1, 1)), frames, "frames before the oversize one are delivered, none after");
        assertFalse(decoder.feed(ByteBuffer.wrap(bytes(invoke(3, 1))), sink), "nothing is decoded after an oversize frame");
        assertEquals(1, frames.size());
    }

    @Test
    void aLengthWithTheTopBitSetIsOversizeNotNegative() {
        FrameDecoder decoder = new FrameDecoder();
        assertFalse(decoder.feed(ByteBuffer.wrap(header(0xFFFF_FFFFL)), sink));
        assertEquals(0xFFFF_FFFFL, decoder.oversizeLength());
    }

    @Test
    void anEmptyFrameIsDroppedAndTheStreamGoesOn() {
        FrameDecoder decoder = new FrameDecoder();
        assertTrue(decoder.feed(ByteBuffer.wrap(concat(header(0), bytes(invoke(1, 2)))), sink));
        assertEquals(List.of(invoke(1, 2)), frames);
        assertEquals(1, malformed.size());
        assertTrue(malformed.get(0).contains("empty frame"), malformed.get(0));
    }

    @Test
    void aPayloadThatIsNotAnIpcFrameIsDroppedAndTheStreamGoesOn() {
        // 0xFF is field 31 with wire type 7, which does not exist.
        byte[] garbage = {(byte) 0xFF, (byte) 0xFF, 0x01, 0x02, 0x03};
        FrameDecoder decoder = new FrameDecoder();
        assertTrue(decoder.feed(ByteBuffer.wrap(concat(header(garbage.length), garbage, bytes(invoke(1, 2)))), sink));
        assertEquals(List.of(invoke(1, 2)), frames);
        assertEquals(1, malformed.size());
        assertTrue(malformed.get(0).contains("is not an IPCFrame"), malformed.get(0));
    }

    @Test
    void readingStraightIntoTheReceiveBufferDecodesLikeFeeding() {
        byte[] stream = bytes(invoke(1, 9000), invoke(2, 1));
        FrameDecoder decoder = new FrameDecoder();
        int offset = 0;
        while (offset < stream.length) {
            ByteBuffer target = decoder.receiveBuffer();
            assertTrue(target.hasRemaining(), "the receive buffer always has room");
            int n = Math.min(target.remaining(), Math.min(1000, stream.length - offset));
            target.put(stream, offset, n);
            offset += n;
            assertTrue(decoder.decode(sink));
        }
        assertEquals(List.of(invoke(1, 9000), invoke(2, 1)), frames);
    }
}

package io.jtrace.service.port;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.jtrace.protos.ReadBuffersResponse;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReadBuffersBatcherTest {
    /** The IPC frame limit: no reply may come near it. */
    private static final int FRAME_LIMIT = 128 * 1024;

    @Test
    void packetsOfEverySizeComeBackWholeInRepliesUnderTheFrameLimit() throws Exception {
        Random random = new Random(7);
        List<byte[]> sent = new ArrayList<>();
        RecordingReply reply = new RecordingReply();
        ReadBuffersBatcher batcher = new ReadBuffersBatcher(reply);
        int[] sizes = {0, 1, 100, ReadBuffersBatcher.BATCH_BYTES - 1, ReadBuffersBatcher.BATCH_BYTES,
                ReadBuffersBatcher.BATCH_BYTES + 1, 3 * ReadBuffersBatcher.BATCH_BYTES + 17, 5, 1_000_000};
        for (int size : sizes) {
            byte[] packet = new byte[size];
            random.nextBytes(packet);
            sent.add(packet);
            // Body and trailer in two parts, with the body at an offset, as the buffer hands them over.
            int bodyLength = size / 3 * 2;
            byte[] body = new byte[bodyLength + 5];
            System.arraycopy(packet, 0, body, 5, bodyLength);
            byte[] trailer = new byte[size - bodyLength + 3];
            System.arraycopy(packet, bodyLength, trailer, 0, size - bodyLength);
            batcher.packet(body, 5, bodyLength, trailer, size - bodyLength);
        }
        batcher.finish();

        List<MessageLite> replies = new ArrayList<>(reply.streamed);
        replies.add(reply.await());
        List<byte[]> received = new ArrayList<>();
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        for (MessageLite message : replies) {
            assertTrue(message.getSerializedSize() < FRAME_LIMIT - 1024, "a reply of " + message.getSerializedSize() + " bytes");
            for (ReadBuffersResponse.Slice slice : ((ReadBuffersResponse) message).getSlicesList()) {
                slice.getData().writeTo(partial);
                if (slice.getLastSliceForPacket()) {
                    received.add(partial.toByteArray());
                    partial.reset();
                }
            }
        }
        assertEquals(sent.size(), received.size());
        for (int i = 0; i < sent.size(); i++) {
            assertArrayEquals(sent.get(i), received.get(i), "packet " + i);
        }
        assertEquals(0, partial.size());
    }

    @Test
    void arraysReusedAfterEachPacketDoNotChangeWhatWasSent() throws Exception {
        RecordingReply reply = new RecordingReply();
        ReadBuffersBatcher batcher = new ReadBuffersBatcher(reply);
        byte[] reused = {1, 2, 3};
        batcher.packet(reused, 0, 3, new byte[0], 0);
        reused[0] = 9;
        batcher.packet(reused, 0, 3, new byte[0], 0);
        batcher.finish();
        ReadBuffersResponse last = reply.await();
        assertEquals(ByteString.copyFrom(new byte[] {1, 2, 3}), last.getSlices(0).getData());
        assertEquals(ByteString.copyFrom(new byte[] {9, 2, 3}), last.getSlices(1).getData());
    }
}

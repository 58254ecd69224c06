package io.jtrace.service.port;

import com.google.protobuf.ByteString;
import io.jtrace.ipc.Reply;
import io.jtrace.protos.ReadBuffersResponse;
import io.jtrace.service.buffer.PacketSink;

/**
 * Packets read out of a session, as a stream of {@code ReadBuffersResponse} replies that each stay well
 * under the IPC frame limit: packets are gathered into batches of up to {@link #BATCH_BYTES}, and a
 * packet larger than that is cut into slices ({@code last_slice_for_packet} on its last), as Perfetto does.
 * Runs on the service thread, inside the read; the reply only queues.
 */
final class ReadBuffersBatcher implements PacketSink {
    /** Slice bytes per reply: with framing overhead, far below the 128 KiB frame limit. */
    static final int BATCH_BYTES = 64 * 1024;

    private final Reply reply;
    private ReadBuffersResponse.Builder batch = ReadBuffersResponse.newBuilder();
    private int batchBytes;

    ReadBuffersBatcher(Reply reply) {
        this.reply = reply;
    }

    @Override
    public void packet(byte[] body, int bodyOffset, int bodyLength, byte[] trailer, int trailerLength) {
        // The arrays are reused after return: the packet is copied once, into the slice(s).
        ByteString packet = ByteString.copyFrom(body, bodyOffset, bodyLength)
                .concat(ByteString.copyFrom(trailer, 0, trailerLength));
        int size = packet.size();
        int start = 0;
        do {
            int end = Math.min(size, start + BATCH_BYTES);
            if (batchBytes + (end - start) > BATCH_BYTES) {
                flushBatch();
            }
            batch.addSlices(ReadBuffersResponse.Slice.newBuilder()
                    .setData(packet.substring(start, end)).setLastSliceForPacket(end == size));
            batchBytes += end - start;
            start = end;
        } while (start < size);
    }

    private void flushBatch() {
        if (batch.getSlicesCount() > 0) {
            reply.stream(batch.build());
            batch = ReadBuffersResponse.newBuilder();
            batchBytes = 0;
        }
    }

    /** The read is over: what is left goes out as the call's last reply. */
    void finish() {
        reply.complete(batch.build());
    }
}

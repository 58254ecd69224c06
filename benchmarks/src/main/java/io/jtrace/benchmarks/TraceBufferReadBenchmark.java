package io.jtrace.benchmarks;

import io.jtrace.protos.TracePacket;
import io.jtrace.protos.TrackEvent;
import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.proto.WireFormat;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Read-out: a trace buffer holding 4 MiB of chunks (1024 chunks of small track events, 8 writers) read
 * into a sink that only counts bytes, as the service does when it writes a trace file. Time per 4 MiB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TraceBufferReadBenchmark {
    private static final int CHUNKS = 1024;
    private static final int PAYLOAD = 4088 - ChunkHeader.SIZE;

    private byte[] payload;
    private int packetsPerChunk;
    private TraceBuffer buffer;
    private int nextChunkId;
    private long bytesRead;

    private static final SequenceIdentity IDENTITY = new SequenceIdentity() {
        @Override
        public int sequenceId(int producerId, int writerId) {
            return writerId + 1;
        }

        @Override
        public int pid(int producerId) {
            return 1;
        }

        @Override
        public int uid(int producerId) {
            return 0;
        }
    };

    @Setup(Level.Trial)
    public void preparePayload() {
        byte[] packet = TracePacket.newBuilder().setTimestamp(123_456_789_000L)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setNameIid(3).addCategoryIids(1))
                .setSequenceFlags(2).build().toByteArray();
        payload = new byte[PAYLOAD];
        ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        while (b.remaining() >= 4 + packet.length) {
            b.putInt(WireFormat.redundantVarint(packet.length));
            b.put(packet);
            packetsPerChunk++;
        }
    }

    @Setup(Level.Invocation)
    public void fill() {
        buffer = new TraceBuffer(64L * 1024 * 1024, TraceBuffer.Policy.RING);
        for (int i = 0; i < CHUNKS; i++) {
            buffer.copyChunk(1, 1 + i % 8, nextChunkId + i / 8, ChunkHeader.packetsWord(packetsPerChunk, 0),
                    payload.clone(), true);
        }
        nextChunkId += CHUNKS / 8;
    }

    @Benchmark
    public long readOut4MiB() {
        return buffer.readAll(IDENTITY, (bytes, offset, length) -> bytesRead += length, true);
    }
}

package io.jtrace.benchmarks;

import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.service.output.TraceFileWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Read-out: a trace buffer holding 4 MiB of chunks (1024 chunks of small track events, 8 writers) read
 * out as the service does when it writes a trace file: into a sink that only counts bytes, and into a
 * {@link TraceFileWriter} writing to {@code /dev/null} (framing and write calls, no disk). Time per 4 MiB
 * (1024 chunks of 290 packets, steady-state slice begins and ends of 12 and 8 bytes; with
 * {@code nameBytes} 200, 36 packets of 217 and 8 bytes).
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
    private TraceFileWriter file;

    /**
     * 0: every begin interns its name (the steady state); otherwise each begin carries a name of this
     * many bytes, so the time per packet against bytes per packet gives the per-byte cost.
     */
    @Param({"0", "200"})
    public int nameBytes;

    /** Whether the chunks come from a trusted (in-process) producer, whose packets are not validated. */
    @Param({"false", "true"})
    public boolean trusted;

    private SequenceIdentity identity;

    @Setup(Level.Trial)
    public void preparePayload() {
        identity = ReadOutFixtures.identity(trusted);
        byte[] begin = ReadOutFixtures.sliceBegin(nameBytes);
        byte[] end = ReadOutFixtures.sliceEnd();
        payload = new byte[PAYLOAD];
        ByteBuffer b = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
        int pos = 0;
        while (PAYLOAD - pos >= ReadOutFixtures.framedSize(begin) + ReadOutFixtures.framedSize(end)) {
            pos = ReadOutFixtures.putFramed(b, pos, begin);
            pos = ReadOutFixtures.putFramed(b, pos, end);
            packetsPerChunk += 2;
        }
    }

    @Setup(Level.Trial)
    public void open() throws IOException {
        buffer = new TraceBuffer(64L * 1024 * 1024, TraceBuffer.Policy.RING);
        file = new TraceFileWriter(Path.of("/dev/null"));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        file.close();
    }

    @Setup(Level.Invocation)
    public void fill() {
        for (int i = 0; i < CHUNKS; i++) {
            buffer.copyChunk(1, 1 + i % 8, nextChunkId + i / 8, ReadOutFixtures.packetsWord(packetsPerChunk),
                    payload.clone(), true);
        }
        nextChunkId += CHUNKS / 8;
    }

    @Benchmark
    public long readOut4MiB() {
        return buffer.readAll(identity, (body, offset, length, trailer, trailerLength) -> bytesRead += length + trailerLength, true);
    }

    @Benchmark
    public long readOut4MiBIntoFile() throws IOException {
        long packets = buffer.readAll(identity, file, true);
        file.flush();
        return packets;
    }
}

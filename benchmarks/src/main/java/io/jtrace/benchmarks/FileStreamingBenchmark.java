package io.jtrace.benchmarks;

import io.jtrace.service.buffer.SequenceIdentity;
import io.jtrace.service.buffer.TraceBuffer;
import io.jtrace.service.output.TraceFileWriter;
import io.jtrace.shm.abi.ChunkHeader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
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
 * The service's whole per-chunk work for a session that streams into a file, as the agent runs it:
 * file-framed chunks of steady-state slices (a trusted, in-process producer's) copied from off-heap memory (the
 * SMB) into a 32 MiB ring, then read out into a {@link TraceFileWriter} on {@code /dev/null} every
 * {@code drainKb} KiB, as {@code SessionOutput} does. Time per drain; per packet it is that divided by
 * {@code drainKb / 4 * 272}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FileStreamingBenchmark {
    private static final int CHUNK = 4096;
    private static final int PAYLOAD = CHUNK - ChunkHeader.SIZE;
    private static final SequenceIdentity IN_PROCESS = ReadOutFixtures.identity(true);

    /** KiB committed between two reads into the file. */
    @Param({"512", "2048"})
    public int drainKb;

    private ByteBuffer smb;
    private int packetsPerChunk;
    private TraceBuffer buffer;
    private TraceFileWriter file;
    private int nextChunkId;

    @Setup(Level.Trial)
    public void open() throws IOException {
        byte[] begin = ReadOutFixtures.sliceBegin(0);
        byte[] end = ReadOutFixtures.sliceEnd();
        // As many chunks as the drain takes, each written once, like an SMB's chunks.
        int chunks = drainKb / 4;
        smb = ByteBuffer.allocateDirect(chunks * CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (int c = 0; c < chunks; c++) {
            int pos = c * CHUNK + ChunkHeader.SIZE;
            int limit = (c + 1) * CHUNK;
            int packets = 0;
            while (limit - pos >= ReadOutFixtures.framedSize(begin) + ReadOutFixtures.framedSize(end)) {
                pos = ReadOutFixtures.putFramed(smb, pos, begin);
                pos = ReadOutFixtures.putFramed(smb, pos, end);
                packets += 2;
            }
            packetsPerChunk = packets;
        }
        buffer = new TraceBuffer(32L * 1024 * 1024, TraceBuffer.Policy.RING);
        file = new TraceFileWriter(Path.of("/dev/null"));
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        file.close();
    }

    @Benchmark
    public long commitAndDrain() throws IOException {
        int chunks = drainKb / 4;
        for (int c = 0; c < chunks; c++) {
            // Two writers, as two threads' chunks interleave.
            buffer.copyChunk(1, 1 + (c & 1), nextChunkId + (c >> 1), ReadOutFixtures.packetsWord(packetsPerChunk), smb,
                    c * CHUNK + ChunkHeader.SIZE, PAYLOAD, true);
        }
        nextChunkId += chunks / 2;
        long packets = buffer.readAll(IN_PROCESS, file, false);
        file.flush();
        return packets;
    }
}

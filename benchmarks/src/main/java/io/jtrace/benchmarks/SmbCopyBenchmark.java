package io.jtrace.benchmarks;

import io.jtrace.shm.abi.SharedMemoryBuffer;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** The peer of {@link ServiceIngestBenchmark}: 32 MiB copied from a mapped SMB file into a heap array. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class SmbCopyBenchmark {
    private static final int SIZE = 32 * 1024 * 1024;

    private SharedMemoryBuffer smb;
    private byte[] target;

    @Setup(Level.Trial)
    public void map() throws IOException {
        smb = SharedMemoryBuffer.create(null, SIZE, 4096);
        smb.unlink();
        target = new byte[SIZE];
    }

    @Benchmark
    public byte[] plainCopy32MiB() {
        smb.buffer().get(0, target);
        return target;
    }
}

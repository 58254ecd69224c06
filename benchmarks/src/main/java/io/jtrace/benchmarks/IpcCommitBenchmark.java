package io.jtrace.benchmarks;

import io.jtrace.consumer.IpcTracingConsumer;
import io.jtrace.daemon.TracingDaemon;
import io.jtrace.producer.remote.IpcProducerEndpoint;
import io.jtrace.protos.DataSourceConfig;
import io.jtrace.protos.TraceConfig;
import io.jtrace.service.ConsumerEndpoint;
import io.jtrace.service.ServiceConfig;
import io.jtrace.service.TracingService;
import io.jtrace.shm.abi.ChunkHeader;
import io.jtrace.shm.abi.PageLayout;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.writer.CommitRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a chunk's commit costs when the service is the daemon (CommitData over the producer socket,
 * then the service moves the chunk) against the embedded direct call, in the same run: one op commits
 * {@link #CHUNKS} full 4 KiB chunks, {@code batch} chunks per commit, and waits for a flush round trip,
 * so the time covers the whole way into the service's ring. Reported per chunk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IpcCommitBenchmark {
    private static final int SMB_SIZE = 8 * 1024 * 1024;
    private static final int PAGE = 4096;
    static final int CHUNKS = SMB_SIZE / PAGE;

    @Param({"embedded", "ipc"})
    public String transport;

    /** Chunks per CommitData: 1 is a producer committing each chunk alone, 64 a commit thread's batch. */
    @Param({"1", "64"})
    public int batch;

    private Path dir;
    private TracingService embedded;
    private TracingDaemon daemon;
    private IpcTracingConsumer ipcConsumer;
    private ConsumerEndpoint embeddedConsumer;
    private ServiceIngestBenchmark.FakeProducer producer;
    private IpcProducerEndpoint ipcEndpoint;
    private SharedMemoryAbi abi;
    private int target;
    private int nextChunkId;
    private CommitRequest[] pending;

    @Setup(Level.Trial)
    public void start() throws Exception {
        ServiceConfig config = new ServiceConfig(SMB_SIZE, PAGE, null, 4, 1L << 30, 5000);
        TraceConfig session = TraceConfig.newBuilder()
                .addBuffers(TraceConfig.BufferConfig.newBuilder().setSizeKb(64 * 1024))
                .addDataSources(TraceConfig.DataSource.newBuilder().setConfig(DataSourceConfig.newBuilder().setName("bench")))
                .build();
        producer = new ServiceIngestBenchmark.FakeProducer();
        if (transport.equals("embedded")) {
            embedded = new TracingService(config);
            producer.endpoint = embedded.connectProducer(producer, "bench", 0, 1);
            producer.endpoint.registerDataSource("bench");
            embeddedConsumer = embedded.connectConsumer(error -> { });
            embeddedConsumer.enableTracing(session).get(10, TimeUnit.SECONDS);
        } else {
            dir = Files.createTempDirectory("jtrace-ipc-bench");
            daemon = TracingDaemon.start(config, dir.resolve("p.sock"), dir.resolve("c.sock"));
            ipcEndpoint = IpcProducerEndpoint.connect(dir.resolve("p.sock"), producer, "bench", 5000, () -> { });
            producer.endpoint = ipcEndpoint;
            producer.endpoint.registerDataSource("bench");
            ipcConsumer = IpcTracingConsumer.connect(dir.resolve("c.sock"), 5000);
            waitForProducer();
            ipcConsumer.enableTracing(session);
        }
        target = producer.targetBuffer.get(10, TimeUnit.SECONDS);
        producer.endpoint.registerTraceWriter(1, target);
        abi = new SharedMemoryAbi(producer.smb);
    }

    private void waitForProducer() throws Exception {
        for (int i = 0; i < 500; i++) {
            if (ipcConsumer.serviceState().get(10, TimeUnit.SECONDS).getDataSourcesCount() > 0) {
                return;
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("the producer never registered");
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        if (embedded != null) {
            embeddedConsumer.freeBuffers().get(10, TimeUnit.SECONDS);
            embedded.close();
        } else {
            ipcConsumer.close();
            ipcEndpoint.disconnect();
            daemon.close();
        }
    }

    /** Every page's chunk written and released again; the producer's side is not what is measured. */
    @Setup(Level.Invocation)
    public void releaseChunks() {
        pending = new CommitRequest[CHUNKS / batch];
        for (int page = 0; page < abi.pageCount(); page++) {
            abi.tryPartitionPage(page, PageLayout.DIV1);
            int chunk = abi.tryAcquireChunkForWriting(page, PageLayout.DIV1);
            if (chunk < 0) {
                throw new IllegalStateException("page " + page + " was not freed by the service");
            }
            abi.writeChunkHeader(abi.chunkOffset(page, PageLayout.DIV1, chunk), nextChunkId++, 1,
                    ChunkHeader.packetsWord(0, 0));
            abi.releaseChunkAsComplete(page, chunk);
            int request = page / batch;
            if (pending[request] == null) {
                pending[request] = new CommitRequest(batch);
            }
            pending[request].add(page, chunk, target);
        }
    }

    @Benchmark
    @OperationsPerInvocation(CHUNKS)
    public boolean commitChunks() throws Exception {
        for (CommitRequest request : pending) {
            producer.endpoint.commit(request);
        }
        // The flush is answered after the service has handled every commit sent before it.
        return embedded != null ? embeddedConsumer.flush(5000).get(10, TimeUnit.SECONDS)
                : ipcConsumer.flush(5000).get(10, TimeUnit.SECONDS);
    }
}

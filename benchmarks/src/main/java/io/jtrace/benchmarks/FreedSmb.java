package io.jtrace.benchmarks;

import io.jtrace.producer.DataSourceContext;
import io.jtrace.shm.abi.SharedMemoryAbi;
import io.jtrace.shm.abi.SharedMemoryBuffer;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.ChunkCommitter;
import io.jtrace.shm.writer.CommitRequest;
import io.jtrace.shm.writer.CommitSink;
import io.jtrace.shm.writer.TraceWriter;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A data source context over a real SMB (the agent's writers, arbiter and commit thread) whose
 * committed chunks are freed at once: a data source's own cost of writing, with no service copying
 * chunks on the machine's other core. Or never freed: once the writers have filled the SMB, every event
 * is dropped (the cost of an event while the tracer is overloaded). Periodic tasks run on
 * {@code periodic} when one is given, else never.
 */
final class FreedSmb implements DataSourceContext, AutoCloseable {
    private final SharedMemoryAbi abi;
    private final ChunkCommitter committer;
    private final ChunkArbiter arbiter;
    private final ScheduledExecutorService periodic;

    FreedSmb(int size) throws Exception {
        this(size, null, true);
    }

    FreedSmb(int size, ScheduledExecutorService periodic, boolean freeChunks) throws Exception {
        this.periodic = periodic;
        SharedMemoryBuffer smb = SharedMemoryBuffer.create(null, size, SharedMemoryBuffer.DEFAULT_PAGE_SIZE);
        smb.unlink();
        abi = new SharedMemoryAbi(smb);
        committer = new ChunkCommitter(abi.pageCount(), new CommitSink() {
            @Override
            public void commit(CommitRequest request) {
                for (int i = 0; freeChunks && i < request.size(); i++) {
                    abi.tryAcquireChunkForReading(request.page(i), request.chunk(i));
                    abi.releaseChunkAsFree(request.page(i), request.chunk(i));
                }
                request.release();
            }

            @Override
            public void flushComplete(long requestId) {}
        }, 1, "bench-commit");
        committer.start();
        arbiter = new ChunkArbiter(abi, committer);
    }

    @Override
    public TraceWriter newTraceWriter() {
        return new TraceWriter(arbiter, 1);
    }

    @Override
    public int targetBuffer() {
        return 1;
    }

    @Override
    public long instanceId() {
        return 1;
    }

    @Override
    public int smbChunks() {
        return arbiter.defaultChunkCount();
    }

    @Override
    public Cancellable every(long periodMillis, Runnable task) {
        if (periodic == null) {
            return () -> { };
        }
        ScheduledFuture<?> f = periodic.scheduleWithFixedDelay(task, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        committer.close();
    }
}

package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;

/**
 * Writes a {@link TraceFileWriter}'s full buffers into its {@link TraceFileChannel} on a thread of its
 * own, so the service thread, which fills them, never waits for the file.
 *
 * <p>Why: a write returns only once the kernel has the bytes, and the thread that made it may then wait
 * to be scheduled again. With 300 paced application threads on two cores, the service thread was found
 * inside {@code pwrite} in half of its stack samples (20 ms apart) while the shared memory buffer it
 * should have been emptying filled (benchmarks/README.md). Now it hands over a full buffer and goes on
 * with one of the others; it waits only when all of them are still being written, that is when the file
 * takes bytes more slowly than the trace makes them.
 *
 * <p>Every use of the channel happens on the write-behind thread, one job at a time and in the order
 * given, so the file gets the same bytes in the same order as if the service wrote them. Buffers and
 * jobs pass between the two threads through blocking queues, whose put and take order the filling of a
 * buffer before its write, and its write before its reuse. The first write that fails stops all
 * writing: later jobs only give their buffers back, and the failure is thrown to the service thread at
 * its next call.
 */
final class WriteBehind implements AutoCloseable {
    /** Buffers per file: one being filled, the others in the queue or being written. */
    static final int BUFFERS = 8;

    private final TraceFileChannel channel;
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS);
    /** Writes, and a sync or the close behind them, in order: room for every buffer and one more. */
    private final BlockingQueue<Job> jobs = new ArrayBlockingQueue<>(BUFFERS + 1);
    /** The first failed write, set by the write-behind thread, thrown at the service thread's next call. */
    private volatile IOException failure;
    private boolean closed;

    /**
     * A write of {@code buffer}'s [0, length); without a buffer, a sync ({@code close} false) or the
     * close, whose caller waits on {@code done}.
     */
    private record Job(ByteBuffer buffer, int length, boolean close, CountDownLatch done) {}

    WriteBehind(TraceFileChannel channel, int bufferSize) {
        this.channel = channel;
        for (int i = 0; i < BUFFERS; i++) {
            free.add(TraceFileChannel.newBuffer(bufferSize));
        }
        Thread thread = new Thread(this::run, "jtrace-file-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** The buffer the caller fills first; the next ones come from {@link #write}. */
    ByteBuffer firstBuffer() {
        return free.remove();
    }

    /**
     * Queues {@code buffer}'s [0, {@code length}) to be written after everything queued before, and
     * returns a buffer to fill next: one already written, waited for if none is.
     */
    ByteBuffer write(ByteBuffer buffer, int length) throws IOException {
        put(new Job(buffer, length, false, null));
        try {
            ByteBuffer next = free.take();
            throwIfFailed();
            return next;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for a trace file buffer", e);
        }
    }

    /** Waits until everything queued is written. */
    void sync() throws IOException {
        Job job = new Job(null, 0, false, new CountDownLatch(1));
        put(job);
        await(job);
    }

    /**
     * Waits for what is queued, closes the file and ends the thread; throws what failed on the way, if
     * anything did. The file is closed even then. Closing again does nothing.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        Job job = new Job(null, 0, true, new CountDownLatch(1));
        try {
            jobs.put(job);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while closing the trace file", e);
        }
        await(job);
    }

    private void await(Job job) throws IOException {
        try {
            job.done.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the trace file to be written", e);
        }
        throwIfFailed();
    }

    private void put(Job job) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        throwIfFailed();
        try {
            jobs.put(job);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while queueing a trace file write", e);
        }
    }

    private void throwIfFailed() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("writing the trace file failed: " + e.getMessage(), e);
        }
    }

    private void run() {
        while (true) {
            Job job;
            try {
                job = jobs.take();
            } catch (InterruptedException e) {
                // Nobody interrupts this thread; should someone, the file is left as the last job left it.
                return;
            }
            try {
                if (job.close) {
                    channel.close();
                } else if (job.buffer != null && failure == null) {
                    channel.write(job.buffer, job.length);
                }
            } catch (IOException | RuntimeException e) {
                if (failure == null) {
                    failure = e instanceof IOException io ? io : new IOException(e);
                }
            }
            if (job.done == null) {
                free.add(job.buffer);
            } else {
                job.done.countDown();
            }
            if (job.close) {
                return;
            }
        }
    }
}

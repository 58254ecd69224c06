package io.jtrace.service.output;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Writes a {@link TraceFileWriter}'s full buffers into its {@link TraceFileChannel} behind the thread
 * that fills them (the service thread): on a thread of its own while that one gets to run, else on the
 * filling thread itself once no buffer is left to fill.
 *
 * <p>Why: a write returns only once the kernel has the bytes, and a thread that blocks on the way may
 * then wait long to be scheduled again. With 300 paced application threads on two cores, the service
 * thread was found inside {@code pwrite} in half of its stack samples (20 ms apart) while the shared
 * memory buffer it should have been emptying filled (benchmarks/README.md). Now it hands a full buffer
 * over and goes on with one of the others. The write-behind thread is no safer from the scheduler: under
 * 64 spinning application threads it waited so long for its turn that the service, waiting in turn for
 * a buffer, stopped moving chunks. So a filling thread that finds no buffer free does not wait for the
 * write-behind thread: it writes the queued buffers itself, in their order, until one is free.
 *
 * <p>Ordering: a job is taken from the queue and written only under {@link #channelLock}, one at a time,
 * so whichever thread writes, the file gets the buffers in the order they were queued. The lock also
 * orders each write after the filling of its buffer (the filler queued it, a happens-before edge of the
 * queue, before any thread could take it under the lock) and before the buffer's reuse (it goes back to
 * {@link #free} after the write, and the filler takes it from there). The first write that fails stops
 * all writing: later jobs only give their buffers back, and the failure is thrown at the filler's next
 * call.
 */
final class WriteBehind implements AutoCloseable {
    /** Buffers per file: one being filled, the others queued or being written. */
    static final int BUFFERS = 8;

    private final TraceFileChannel channel;
    /** Buffers written and ready to fill again. */
    private final BlockingQueue<ByteBuffer> free = new ArrayBlockingQueue<>(BUFFERS);
    /** Full buffers in the order they were handed over; taken and written only under {@link #channelLock}. */
    private final BlockingQueue<Job> jobs = new ArrayBlockingQueue<>(BUFFERS);
    private final ReentrantLock channelLock = new ReentrantLock();
    /** One permit per job queued, and one at close: what wakes the write-behind thread. */
    private final Semaphore queued = new Semaphore(0);
    /** The first failed write, set under the lock, thrown at the filler's next call (volatile: read without it). */
    private volatile IOException failure;
    /**
     * Set by close before it takes the lock to write what is left; the filler refuses work after it, and
     * the write-behind thread, looking under the lock, ends (close writes the rest). Volatile: the
     * write-behind thread may look before close takes the lock.
     */
    private volatile boolean closed;

    private record Job(ByteBuffer buffer, int length) {}

    WriteBehind(TraceFileChannel channel, int bufferSize) {
        this(channel, bufferSize, true);
    }

    /** Without the write-behind thread ({@code withThread} false), as when it never gets to run: tests. */
    WriteBehind(TraceFileChannel channel, int bufferSize, boolean withThread) {
        this.channel = channel;
        for (int i = 0; i < BUFFERS; i++) {
            free.add(TraceFileChannel.newBuffer(bufferSize));
        }
        if (withThread) {
            Thread thread = new Thread(this::run, "jtrace-file-writer");
            thread.setDaemon(true);
            thread.start();
        }
    }

    /** The buffer the caller fills first; the next ones come from {@link #write}. */
    ByteBuffer firstBuffer() {
        return free.remove();
    }

    /**
     * Queues {@code buffer}'s [0, {@code length}) to be written after everything queued before, and
     * returns a buffer to fill next: one already written, or, when none is, one this call writes itself.
     * Throws only before the buffer is queued (closed, or a write failed): a buffer handed over is never
     * the caller's again, and a failure found later is thrown at the next call.
     */
    ByteBuffer write(ByteBuffer buffer, int length) throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        throwIfFailed();
        // Never full: there are as many slots as buffers, and this one is not queued yet.
        jobs.add(new Job(buffer, length));
        queued.release();
        ByteBuffer next = free.poll();
        if (next == null) {
            writeQueued(true);
            next = free.remove();
        }
        return next;
    }

    /** Writes everything queued, on this thread, so the file holds it all when this returns. */
    void sync() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
        writeQueued(false);
        throwIfFailed();
    }

    /**
     * Writes what is queued, closes the file and ends the write-behind thread; throws what failed on the
     * way, if anything did. The file is closed even then. Closing again does nothing.
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        channelLock.lock();
        try {
            writeQueued(false);
            channel.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        } finally {
            channelLock.unlock();
            queued.release();
        }
        throwIfFailed();
    }

    private void throwIfFailed() throws IOException {
        IOException e = failure;
        if (e != null) {
            throw new IOException("writing the trace file failed: " + e.getMessage(), e);
        }
    }

    /**
     * Takes and writes queued jobs under the lock: all of them, or ({@code untilFree}) until a buffer is
     * free. Waits for the lock while the write-behind thread writes one buffer, and so, should that
     * thread lose the CPU in the middle of a write, until it gets it back: the channel takes one write
     * at a time, in order.
     */
    private void writeQueued(boolean untilFree) {
        channelLock.lock();
        try {
            Job job;
            while ((!untilFree || free.isEmpty()) && (job = jobs.poll()) != null) {
                writeJob(job);
            }
        } finally {
            channelLock.unlock();
        }
    }

    /**
     * Under the lock: writes one job's buffer (unless a write failed before) and frees the buffer. Any
     * failure, an {@link Error} included, is kept for the filler; the buffer goes back either way.
     */
    private void writeJob(Job job) {
        try {
            if (failure == null) {
                channel.write(job.buffer, job.length);
            }
        } catch (IOException e) {
            failure = e;
        } catch (Throwable t) {
            failure = new IOException(t);
        } finally {
            free.add(job.buffer);
        }
    }

    /** The write-behind thread: one job per permit, unless the filler wrote it first. */
    private void run() {
        while (true) {
            try {
                queued.acquire();
            } catch (InterruptedException e) {
                // Nobody interrupts this thread; should someone, the filler writes what is left itself.
                return;
            }
            channelLock.lock();
            try {
                if (closed) {
                    return;
                }
                Job job = jobs.poll();
                if (job != null) {
                    writeJob(job);
                }
            } finally {
                channelLock.unlock();
            }
        }
    }
}

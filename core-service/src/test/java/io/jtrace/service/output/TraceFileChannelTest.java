package io.jtrace.service.output;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trace file's channel: reopening it after an interrupt closed it, and only when that is safe. */
class TraceFileChannelTest {
    private static final int CHUNK = 1 << 20;

    @TempDir
    Path dir;

    /**
     * An interrupt that lands inside a write closes the channel, and the file is opened again by its
     * path. If the path names another file by then (the trace file was moved away and a new one put in
     * its place), the reopen refuses it: the write fails with an error that says so, the new file gets
     * none of this session's bytes, and the writer keeps its interrupt.
     */
    @Test
    void aReopenAfterAnInterruptRefusesAFileThatReplacedTheTraceFile() throws Exception {
        Path file = dir.resolve("trace.pftrace");
        Path moved = dir.resolve("moved.pftrace");
        TraceFileChannel channel = TraceFileChannel.open(file);
        ByteBuffer bytes = TraceFileChannel.newBuffer(CHUNK);
        channel.write(bytes, CHUNK, 0);
        Files.move(file, moved);
        byte[] replacement = {42};
        Files.write(file, replacement);

        AtomicReference<IOException> failure = new AtomicReference<>();
        AtomicBoolean interruptedAfterwards = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        // Until an interrupt lands inside a write, the writes go on into the moved file, which the channel
        // still has open; each at the same position, so the file stays small.
        java.util.concurrent.CountDownLatch firstWritten = new java.util.concurrent.CountDownLatch(1);
        Thread writer = new Thread(() -> {
            try {
                while (!stop.get()) {
                    channel.write(bytes, CHUNK, CHUNK);
                    firstWritten.countDown();
                }
            } catch (IOException e) {
                failure.set(e);
                interruptedAfterwards.set(Thread.currentThread().isInterrupted());
            }
        });
        writer.start();
        // Interrupts only once a write went into the moved file, which the size check below counts on.
        assertTrue(firstWritten.await(60, TimeUnit.SECONDS), "a first write into the moved file");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (writer.isAlive() && Files.size(file) == replacement.length && System.nanoTime() < deadline) {
            writer.interrupt();
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        stop.set(true);
        writer.join(TimeUnit.SECONDS.toMillis(10));

        assertArrayEquals(replacement, Files.readAllBytes(file), "the file now at the path is untouched");
        assertNotNull(failure.get(), "no interrupt closed the channel inside a write within a minute");
        assertTrue(failure.get().getMessage().contains("is no longer the trace file this session opened"),
                failure.get().getMessage());
        assertTrue(interruptedAfterwards.get(), "the writer's interrupt is given back");
        assertArrayEquals(replacement, Files.readAllBytes(file), "the file now at the path is untouched");
        assertEquals(2L * CHUNK, Files.size(moved), "the moved file holds what was written before the interrupt");
        channel.close();
    }

    /** A closed channel stays closed: a write after the close fails instead of opening the file again. */
    @Test
    void aWriteAfterTheCloseFailsInsteadOfReopeningTheFile() throws IOException {
        Path file = dir.resolve("closed.pftrace");
        TraceFileChannel channel = TraceFileChannel.open(file);
        ByteBuffer bytes = TraceFileChannel.newBuffer(16);
        channel.write(bytes, 16, 0);
        channel.close();

        assertThrows(ClosedChannelException.class, () -> channel.write(bytes, 16, 16));
        assertEquals(16, Files.size(file));
    }
}

package io.jtrace.service.output;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens a named pipe (FIFO) for writing without letting a missing reader hold the caller, the service's
 * thread: such an open blocks until some process opens the pipe for reading. It runs on a thread of its
 * own; when no reader has come within {@link #READER_WAIT_MILLIS}, the caller gets an error that says what
 * is missing, and another thread opens the pipe for reading, which lets the pending open through; both
 * ends are then closed. (Java cannot ask for O_NONBLOCK, which would fail the open at once.)
 */
final class PipeOpening {
    /** How long a session's start waits for the pipe's reader. */
    static final long READER_WAIT_MILLIS = 1000;
    private static final int FILE_TYPE_BITS = 0170000;
    private static final int FIFO = 0010000;

    private PipeOpening() {}

    /** Whether {@code file} names a FIFO (false where the file system cannot tell, or nothing is there). */
    static boolean isPipe(Path file) {
        try {
            Object mode = Files.getAttribute(file, "unix:mode");
            return mode instanceof Integer m && (m & FILE_TYPE_BITS) == FIFO;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }

    /** The pipe open for writing, once a reader has it open; an error naming the pipe if none comes in time. */
    static FileChannel openForWriting(Path pipe, long waitMillis) throws IOException {
        CompletableFuture<FileChannel> opened = new CompletableFuture<>();
        Thread opener = new Thread(() -> {
            try {
                opened.complete(FileChannel.open(pipe, StandardOpenOption.WRITE));
            } catch (Throwable t) {
                opened.completeExceptionally(t);
            }
        }, "jtrace-pipe-open");
        opener.setDaemon(true);
        opener.start();
        try {
            return opened.get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            FileChannel justOpened = abandon(pipe, opened);
            if (justOpened != null) {
                return justOpened;
            }
            throw new IOException("no process has the pipe " + pipe + " open for reading; start its reader first"
                    + " (e.g. cat " + pipe + " > trace.pftrace)");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            FileChannel justOpened = abandon(pipe, opened);
            Thread.currentThread().interrupt();
            closeQuietly(justOpened);
            throw new IOException("interrupted while waiting for the reader of the pipe " + pipe);
        }
    }

    /**
     * Gives up on the pending open without waiting for it: returns its channel if a reader came just now;
     * otherwise whatever it yields later is closed, and a thread of its own opens the pipe for reading,
     * which lets the open through (that thread, not the caller, waits should no writer ever come). A
     * reader that comes meanwhile reads an empty stream.
     */
    private static FileChannel abandon(Path pipe, CompletableFuture<FileChannel> opened) {
        FileChannel now = opened.isDone() && !opened.isCompletedExceptionally() ? opened.join() : null;
        if (now != null) {
            return now;
        }
        opened.thenAccept(PipeOpening::closeQuietly);
        if (!opened.isDone()) {
            Thread releaser = new Thread(() -> {
                try {
                    FileChannel.open(pipe, StandardOpenOption.READ).close();
                } catch (IOException e) {
                    // Not readable by this user: the pending open waits for a reader of the pipe's own.
                }
            }, "jtrace-pipe-release");
            releaser.setDaemon(true);
            releaser.start();
        }
        return null;
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel == null) {
            return;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing was written through it.
        }
    }
}

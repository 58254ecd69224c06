package io.jtrace.service.output;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The thread that writes a {@link FileLog}'s ring out while no appender does. While a stream keeps the
 * ring filling it looks again every {@link #POLL_NANOS} on its own, so appenders do not wake it: a wake
 * is a futex call and, on a virtual machine, an interrupt sent to the other CPU, which cost a thread
 * emitting 10 M slices a second about 4 % of its time when the appenders woke it every 256 KiB. Once a
 * look finds less than {@link #STREAM_BYTES} to write it writes that out and sleeps until a commit crosses
 * a {@link #WAKE_BYTES} boundary ({@link #wakeIfAsleep}) or the ring is full or the log closes
 * ({@link #wake}); a flush writes out what is there on its own thread.
 *
 * <h2>Ordering</h2>
 * Before it parks, the thread stores {@link #sleeping} (volatile), then a full fence, then writes out
 * every range committed by then ({@link FileLog#consumeNow}, which reads the slots with acquire) and
 * looks at the ring's reservation word. An appender whose commit crossed a boundary stores its slot
 * (release), then a full fence, then reads {@link #sleeping} ({@link #wakeIfAsleep}). The two fences
 * make this Dekker's handshake: either the thread's write-out sees the crossing range committed, with
 * everything that happens-before that commit, and writes it (into a pipe, which is written in order,
 * only once no range before it is still being filled), or the appender sees the thread asleep and
 * wakes it. The handshake is what the write-out adds: a stream whose last commit crosses a boundary is
 * in the file without a flush. What a parked thread may leave unwritten until the next crossing, full
 * ring, flush or close stays under {@link #STREAM_BYTES} + {@link #WAKE_BYTES}: ranges not yet committed
 * when its last look reached them (with {@link #STREAM_BYTES} or more of those reserved it keeps looking
 * instead), and ranges committed after that look up to the next boundary. Only the appender whose CAS
 * clears {@link #sleeping} unparks it.
 */
final class FileThread {
    /** Bytes after which an appender wakes the sleeping thread: each write moves this much or more. */
    static final int WAKE_BYTES = 256 * 1024;
    /** Bytes a look must find for the thread to keep looking on its own: about 32 MB/s at one look a millisecond. */
    static final int STREAM_BYTES = 32 * 1024;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Looks that moved nothing double the wait, up to 128 ms. */
    private static final int MAX_BACK_OFF_SHIFT = 7;

    private static final VarHandle SLEEPING;

    static {
        try {
            SLEEPING = MethodHandles.lookup().findVarHandle(FileThread.class, "sleeping", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final FileLog log;
    private final int streamBytes;
    private final Thread thread;
    /** Set (volatile) by the thread before it sleeps; cleared by the CAS of the one appender that wakes it. */
    @SuppressWarnings("unused")
    private boolean sleeping;

    FileThread(FileLog log) {
        this(log, STREAM_BYTES, true);
    }

    /**
     * With another threshold than {@link #STREAM_BYTES} and no thread to start or wake ({@code withThread}
     * false): tests, which run the two halves of the sleep protocol on threads of their own.
     */
    FileThread(FileLog log, int streamBytes, boolean withThread) {
        this.log = log;
        this.streamBytes = streamBytes;
        if (withThread) {
            thread = new Thread(this::run, "jtrace-file-writer");
            thread.setDaemon(true);
        } else {
            thread = null;
        }
    }

    void start() {
        thread.start();
    }

    /**
     * An appender's commit crossed a {@link #WAKE_BYTES} boundary: wakes the thread if it sleeps, or is
     * about to. Returns whether this call woke it.
     */
    boolean wakeIfAsleep() {
        // Orders the caller's commit (a release store of its slot) before the read of the flag: the
        // appender's half of the handshake in the class comment. Once every WAKE_BYTES, never per packet.
        VarHandle.fullFence();
        if ((boolean) SLEEPING.getVolatile(this) && SLEEPING.compareAndSet(this, true, false)) {
            LockSupport.unpark(thread);
            return true;
        }
        return false;
    }

    /**
     * Announces that the thread goes to sleep, writes out what is committed, then looks at the ring once
     * more (see the class comment): whether it may park, finding too little to write. {@link #endSleep}
     * follows, parked or not.
     */
    boolean announceSleep() {
        SLEEPING.setVolatile(this, true);
        // A volatile store does not order the acquire loads after it (only volatile ones): the fence
        // does, the thread's half of the handshake in the class comment.
        VarHandle.fullFence();
        log.consumeNow();
        return log.unwrittenBytes() < streamBytes && !log.isClosed();
    }

    void endSleep() {
        SLEEPING.setVolatile(this, false);
    }

    /** Wakes the thread whatever it is doing: the ring is full, or the log closed. */
    void wake() {
        LockSupport.unpark(thread);
    }

    private void run() {
        int idleLooks = 0;
        while (!log.isClosed()) {
            if (log.unwrittenBytes() >= streamBytes) {
                // A look that moved nothing: a range still being copied in holds the rest back (or one
                // whose appender failed never will be committed): look again less and less often.
                idleLooks = log.consumeNow() ? 0 : Math.min(idleLooks + 1, MAX_BACK_OFF_SHIFT);
                LockSupport.parkNanos(this, POLL_NANOS << idleLooks);
                continue;
            }
            idleLooks = 0;
            if (announceSleep()) {
                LockSupport.park(this);
            }
            endSleep();
            if (!log.isClosed()) {
                // Woken by a crossing, a full ring (or for no reason): write what is there.
                log.consumeNow();
            }
        }
    }
}

package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.service.output.InMemoryFileLog;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.JZZ_Result;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The trace file's ring ({@code FileLog}): appenders reserve by one CAS, fill with plain stores and
 * commit with a release store of their slot; one consumer at a time writes the committed ranges out at
 * their positions and hands the written prefix back with release stores. Whatever the interleaving,
 * the file gets every committed range whole at its position, and no range is reused before it was
 * written.
 */
public class FileLogTest {
    private FileLogTest() {}

    /**
     * Two appenders share a ring that holds both exactly: both get room, and the file holds each range
     * whole (no byte of one in the other's place), one after the other.
     *
     * <p>r1, r2: each appender got room; r3: the file holds two whole ranges.
     */
    @JCStressTest
    @Outcome(id = "true, true, true", expect = ACCEPTABLE, desc = "Both appended, both whole in the file.")
    @Outcome(expect = FORBIDDEN, desc = "Room refused or a range torn, lost or duplicated.")
    @State
    public static class TwoAppenders {
        private final InMemoryFileLog log = new InMemoryFileLog(16);

        @Actor
        public void first(ZZZ_Result r) {
            r.r1 = log.tryAppend(8, (byte) 1);
        }

        @Actor
        public void second(ZZZ_Result r) {
            r.r2 = log.tryAppend(8, (byte) 2);
        }

        @Arbiter
        public void file(ZZZ_Result r) {
            log.sync();
            byte[] file = log.file();
            r.r3 = file.length == 16 && uniform(file, 0, 8) && uniform(file, 8, 16) && file[0] != file[8];
        }
    }

    /**
     * The ring is full of committed bytes not yet written; an appender asks for room while the consumer
     * writes them out. It gets room only once they are written (the consumer's release store of the
     * written position, which the appender reads with acquire, comes after the write), so the file holds
     * the old bytes untouched and then, if it got room, the new ones.
     *
     * <p>r1: the appender got room; r2: the file holds the old bytes whole, then the new ones if any.
     */
    @JCStressTest
    @Outcome(id = {"true, true", "false, true"}, expect = ACCEPTABLE, desc = "Old bytes whole, new ones after them if appended.")
    @Outcome(expect = FORBIDDEN, desc = "The appender overwrote bytes before they were written, or bytes were lost.")
    @State
    public static class AppendAgainstTheConsumer {
        private final InMemoryFileLog log = new InMemoryFileLog(16);

        public AppendAgainstTheConsumer() {
            log.tryAppend(16, (byte) 9);
        }

        @Actor
        public void appender(ZZ_Result r) {
            r.r1 = log.tryAppend(8, (byte) 1);
        }

        @Actor
        public void consumer() {
            log.consume();
        }

        @Arbiter
        public void file(ZZ_Result r) {
            log.sync();
            byte[] file = log.file();
            boolean oldWhole = file.length >= 16 && uniform(file, 0, 16) && file[0] == 9;
            r.r2 = oldWhole && (r.r1 ? file.length == 24 && uniform(file, 16, 24) && file[16] == 1 : file.length == 16);
        }
    }

    /**
     * A range is reserved but not filled (its appender descheduled); its appender fills and commits it
     * while a consumer writes out what is committed. The consumer writes past the hole or, having seen
     * the commit (the acquire load of the slot), writes the range too, at its own position: never before
     * its bytes and position are in place, and never a range twice or at another's place.
     *
     * <p>r1: the file held the later range whole right after the consumer's pass; r2: after a flush
     * the file holds both ranges whole, each at its position.
     */
    @JCStressTest
    @Outcome(id = "true, true", expect = ACCEPTABLE, desc = "Both ranges whole, each at its position.")
    @Outcome(expect = FORBIDDEN, desc = "A range written before it was filled, at a wrong place, or lost.")
    @State
    public static class CommitAgainstAConsumerPastTheHole {
        private final InMemoryFileLog log = new InMemoryFileLog(32);
        private final long open;

        public CommitAgainstAConsumerPastTheHole() {
            open = log.reserve(8);
            log.tryAppend(8, (byte) 2);
        }

        @Actor
        public void appender() {
            log.fillAndCommit(open, 8, (byte) 1);
        }

        @Actor
        public void consumer(ZZ_Result r) {
            log.consume();
            byte[] file = log.file();
            boolean firstAbsentOrWhole = uniform(file, 0, 8) && (file[0] == 0 || file[0] == 1);
            r.r1 = file.length == 16 && firstAbsentOrWhole && uniform(file, 8, 16) && file[8] == 2;
        }

        @Arbiter
        public void file(ZZ_Result r) {
            log.sync();
            byte[] file = log.file();
            r.r2 = file.length == 16 && uniform(file, 0, 8) && file[0] == 1 && uniform(file, 8, 16) && file[8] == 2;
        }
    }

    /**
     * The ring is full behind a range still being filled at its front; its appender commits it while
     * another appender, finding the ring full, makes room (which writes only the committed ranges at the
     * front, up to the first it cannot claim). Either the room-maker came first and wrote nothing (so
     * there is no room yet), or it saw the commit, wrote both ranges and handed their space back. Never
     * a range written before it was filled, lost, or space handed back that was not written; and, the
     * front-only rule itself, never the committed range behind the open front written by the room-maker
     * (which freed nothing: a full ring's scan by every appender was the cost this rule removed).
     *
     * <p>r1: makeRoom wrote; r2: a third range then fitted in the ring; r3: after a flush the file holds
     * every range whole at its position.
     */
    @JCStressTest
    @Outcome(id = {"false, false, true", "true, true, true"}, expect = ACCEPTABLE,
            desc = "Before the commit: nothing written, no room; after it: both written, room.")
    @Outcome(id = "true, false, true", expect = FORBIDDEN,
            desc = "Wrote without freeing room: a range past the front, which is the file thread's to write.")
    @Outcome(expect = FORBIDDEN, desc = "Room without the front written, a range written early or lost.")
    @State
    public static class MakeRoomAgainstTheFrontsCommit {
        private final InMemoryFileLog log = new InMemoryFileLog(16);
        private final long front;

        public MakeRoomAgainstTheFrontsCommit() {
            front = log.reserve(8);
            log.tryAppend(8, (byte) 2);
        }

        @Actor
        public void appender() {
            log.fillAndCommit(front, 8, (byte) 1);
        }

        @Actor
        public void roomMaker(ZZZ_Result r) {
            r.r1 = log.makeRoom();
            r.r2 = log.tryAppend(8, (byte) 3);
        }

        @Arbiter
        public void file(ZZZ_Result r) {
            log.sync();
            byte[] file = log.file();
            boolean third = !r.r2 || file.length == 24 && uniform(file, 16, 24) && file[16] == 3;
            r.r3 = file.length >= 16 && uniform(file, 0, 8) && file[0] == 1 && uniform(file, 8, 16) && file[8] == 2 && third;
        }
    }

    /**
     * Two threads write out the same committed ranges at once (the file thread and an appender that found
     * the ring full): each range is claimed by one of them (CAS of its slot), so each is written once,
     * at its position, and counted once; the ring's space comes back only after both ranges are written.
     *
     * <p>r1: the packets counted written; r2: the file holds both ranges whole; r3: the whole ring can be
     * reserved again after both passes.
     */
    @JCStressTest
    @Outcome(id = "2, true, true", expect = ACCEPTABLE, desc = "Each range written and counted once.")
    @Outcome(expect = FORBIDDEN, desc = "A range written or counted twice, or lost, or its space not handed back.")
    @State
    public static class TwoConsumers {
        private final InMemoryFileLog log = new InMemoryFileLog(32);

        public TwoConsumers() {
            log.tryAppend(8, (byte) 1);
            log.tryAppend(8, (byte) 2);
        }

        @Actor
        public void fileThread() {
            log.consume();
        }

        @Actor
        public void appender() {
            log.consume();
        }

        @Arbiter
        public void file(JZZ_Result r) {
            log.consume();
            r.r1 = log.packetsWritten();
            byte[] file = log.file();
            r.r2 = file.length == 16 && uniform(file, 0, 8) && file[0] == 1 && uniform(file, 8, 16) && file[8] == 2;
            r.r3 = log.tryAppend(32, (byte) 3);
        }
    }

    /**
     * An appender that found the ring full writes past it while the session closes the file: it counts
     * itself in, then reads whether the file is closed; the closer marks it closed, then waits for those
     * counted in (all volatile). So either the write is refused, or it lands whole before the file
     * closes; never after.
     *
     * <p>r1: the write was made; r2: the file holds it whole if made, nothing otherwise, and nothing was
     * written after the close.
     */
    @JCStressTest
    @Outcome(id = {"true, true", "false, true"}, expect = ACCEPTABLE, desc = "Written before the close, or refused.")
    @Outcome(expect = FORBIDDEN, desc = "Written after the file closed, torn, or lost.")
    @State
    public static class WritePastTheRingAgainstClose {
        private final InMemoryFileLog log = new InMemoryFileLog(16);

        @Actor
        public void appender(ZZ_Result r) {
            r.r1 = log.tryDirect(8, (byte) 4);
        }

        @Actor
        public void closer() {
            log.close();
        }

        @Arbiter
        public void file(ZZ_Result r) {
            byte[] file = log.file();
            boolean content = r.r1 ? file.length == 8 && uniform(file, 0, 8) && file[0] == 4 : file.length == 0;
            r.r2 = content && !log.writtenAfterClose();
        }
    }

    /**
     * An appender writes past the ring while a flush drains such writes: the appender counts itself in
     * its epoch, then reads the epoch again; the flush flips the epoch, then waits for the old one's
     * count (all volatile). So a write counted in the old epoch is in the file when the flush returns;
     * one in the new epoch may or may not be.
     *
     * <p>r1: the epoch the write counted in (0: the old one); r2: 1 if the file held the write whole
     * right after the flush, 0 if it held nothing, -1 if it held something else.
     */
    @JCStressTest
    @Outcome(id = {"0, 1", "1, 1", "1, 0"}, expect = ACCEPTABLE, desc = "Waited for when it came first; else maybe not.")
    @Outcome(expect = FORBIDDEN, desc = "The flush returned without a write it should have waited for, or a torn write.")
    @State
    public static class WritePastTheRingAgainstFlush {
        private final InMemoryFileLog log = new InMemoryFileLog(16);

        @Actor
        public void appender(II_Result r) {
            r.r1 = log.tryDirectInEpoch(8, (byte) 5);
        }

        @Actor
        public void flush(II_Result r) {
            log.drainDirect();
            byte[] file = log.file();
            r.r2 = file.length == 0 ? 0 : file.length == 8 && uniform(file, 0, 8) && file[0] == 5 ? 1 : -1;
        }
    }

    private static boolean uniform(byte[] bytes, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (bytes[i] != bytes[from]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The file thread falls asleep while an appender commits: it announces its sleep (volatile store), a
     * full fence, writes out what is committed (acquire reads of the slots) and looks at the ring once
     * more, while the appender reserves, commits (release store of its slot) and, its commit having
     * crossed a wake boundary, a full fence and reads whether the thread sleeps. The range is below the
     * thread's threshold, so the thread always parks (as one that polled and found little to write):
     * either it wrote the range out before parking or the appender sees it asleep and wakes it, never
     * asleep with the range unwritten and nobody waking it.
     *
     * <p>r1: the thread would park; r2: the appender woke it; r3: the thread wrote the range out.
     */
    @JCStressTest
    @Outcome(id = {"true, false, true", "true, true, true"}, expect = ACCEPTABLE,
            desc = "Wrote the range before parking (a wake after that is harmless).")
    @Outcome(id = "true, true, false", expect = ACCEPTABLE, desc = "Parked before the commit, and was woken.")
    @Outcome(id = "true, false, false", expect = FORBIDDEN, desc = "Asleep with the range unwritten, and never woken.")
    @Outcome(expect = FORBIDDEN, desc = "Stayed awake for a range below its threshold.")
    @State
    public static class AppendAgainstTheFileThreadFallingAsleep {
        private final InMemoryFileLog log = new InMemoryFileLog(16);

        {
            log.withFileThread(16);
        }

        @Actor
        public void fileThread(ZZZ_Result r) {
            r.r1 = log.fileThreadWouldSleep();
        }

        @Actor
        public void appender(ZZZ_Result r) {
            log.tryAppend(8, (byte) 3);
            r.r2 = log.wakeFileThreadIfAsleep();
        }

        @Arbiter
        public void file(ZZZ_Result r) {
            byte[] file = log.file();
            r.r3 = file.length == 8 && uniform(file, 0, 8) && file[0] == 3;
        }
    }
}

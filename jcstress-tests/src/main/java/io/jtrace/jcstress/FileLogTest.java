package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.service.output.InMemoryFileLog;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZ_Result;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The trace file's ring ({@code FileLog}): appenders reserve by one CAS, fill with plain stores and
 * commit with a release store of their slot; one consumer at a time writes the committed prefix out
 * and hands the space back with release stores. Whatever the interleaving, the file gets every
 * committed range whole, in the order of reservation, and no range is reused before it was written.
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

    private static boolean uniform(byte[] bytes, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            if (bytes[i] != bytes[from]) {
                return false;
            }
        }
        return true;
    }
}

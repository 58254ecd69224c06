package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.writer.PatchOrderRig;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZZZ_Result;

/**
 * The commit thread's drain against a writer whose packet spans two chunks (chunk X released, X's size
 * patch queued, chunk Y released): the patches taken before the chunks, the chunks, then the patches
 * queued meanwhile whose chunks were taken ({@code PendingPatches}). A request never carries Y without
 * X's patch (the service could not read the sequence past X and would overwrite it in a ring streamed
 * into a file), never the patch without X, and nothing is lost or sent twice.
 *
 * <p>r1, r2, r3: the first drain's request holds X, the patch, Y; r4: across it and the drain after the
 * writer is done, each exactly once.
 */
@JCStressTest
@Outcome(id = "true, true, true, true", expect = ACCEPTABLE, desc = "The drain took everything.")
@Outcome(id = "true, true, false, true", expect = ACCEPTABLE, desc = "X and its patch; Y next time.")
@Outcome(id = "true, false, false, true", expect = ACCEPTABLE, desc = "X alone; its patch and Y next time.")
@Outcome(id = "false, false, false, true", expect = ACCEPTABLE, desc = "The drain came first: everything next time.")
@Outcome(expect = FORBIDDEN, desc = "Y without X's patch, the patch without X, or something lost or sent twice.")
@State
public class PatchOrderTest {
    private final PatchOrderRig rig = new PatchOrderRig();

    @Actor
    public void writer() {
        rig.writerSpansAPacketOverTwoChunks();
    }

    @Actor
    public void commitThread() {
        rig.commitThreadDrains();
    }

    @Arbiter
    public void check(ZZZZ_Result r) {
        r.r1 = rig.firstHasX();
        r.r2 = rig.firstHasThePatch();
        r.r3 = rig.firstHasY();
        rig.drainTheRest();
        r.r4 = rig.allOnce();
    }
}

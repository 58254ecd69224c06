package io.jtrace.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.jtrace.shm.abi.InProcessSmb;
import io.jtrace.shm.writer.ChunkArbiter;
import io.jtrace.shm.writer.TraceWriter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.J_Result;

/**
 * The count of dropped records a control thread reads from a writer it does not own
 * ({@link TraceWriter#droppedRecords}), as the agent's live count of lost events does. The writer, its
 * SMB full, drops a record and then two descriptive packets: 1 is the true count from the first drop
 * on, and a descriptive drop taken for a record would read 2 or 3.
 *
 * <p>Ordering proven: the writer counts a descriptive drop (opaque store) before the release store of
 * its total that counts the same drop; the reader loads the total with acquire and the descriptive
 * count after it. So every descriptive drop in the total it read is in the descriptive count it reads:
 * it may miss the record for a moment (a descriptive drop counted after its total was read), never
 * takes a descriptive packet for a record.
 */
@JCStressTest
@Outcome(id = "0", expect = ACCEPTABLE, desc = "Before the record's drop, or a descriptive drop's count seen before the total that counts it.")
@Outcome(id = "1", expect = ACCEPTABLE, desc = "The record's drop.")
@Outcome(expect = FORBIDDEN, desc = "A descriptive drop counted as a record.")
@State
public class DroppedRecordsTest {
    private final TraceWriter writer;

    public DroppedRecordsTest() {
        ChunkArbiter arbiter = InProcessSmb.arbiter(InProcessSmb.abi(1));
        // Another writer's chunks fill the SMB: every packet of the writer under test is dropped.
        while (arbiter.acquireChunk(1) >= 0) {
            Thread.onSpinWait();
        }
        writer = new TraceWriter(arbiter, 0);
    }

    @Actor
    public void writer() {
        Packets.write(writer, 0, 0);
        writer.describing(true);
        Packets.write(writer, 0, 1);
        Packets.write(writer, 0, 2);
        writer.describing(false);
    }

    @Actor
    public void reader(J_Result r) {
        r.r1 = writer.droppedRecords();
    }
}

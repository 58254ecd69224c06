package io.jtrace.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jtrace.it.trace.TraceModel;
import io.jtrace.it.workload.QuietThreadWorkload;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A session that streams into a file, and a thread that wrote a slice and went quiet: its events are in
 * its writer's chunk, which no commit brings. After a flush ({@code jcmd … flush}) the file already has
 * the slice; after the JVM's normal exit it has it once, with what the thread wrote later.
 */
class QuietThreadAfterFlushTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jtrace.jdk17", "jtrace.jdk25"})
    void aQuietThreadsSliceIsInTheStreamedFileAfterAFlushAndOnceAtTheEnd(String jdk) throws Exception {
        Path trace = dir.resolve("quiet.pftrace");
        try (RunningJvm jvm = new RunningJvm(jdk, "start,sources=track_event,file=" + trace, dir, List.of(),
                QuietThreadWorkload.class.getName())) {
            RunningJvm.Jcmd flushed = jvm.jcmd("flush");
            assertEquals(0, flushed.returnCode(), flushed.output());

            TraceModel afterFlush = TraceModel.read(trace);
            assertEquals(1, afterFlush.slicesNamed("quiet-slice").size(), "the quiet thread's slice, after the flush");
            assertEquals(0, afterFlush.slicesNamed("after-flush").size());

            jvm.process.getOutputStream().write('\n');
            jvm.process.getOutputStream().flush();
            assertTrue(jvm.process.waitFor(60, TimeUnit.SECONDS), "the workload exits");
            assertEquals(0, jvm.process.exitValue(), jvm.stderrText());
            assertEquals("", jvm.stderrText(), "the agent's stderr");
        }
        TraceModel atEnd = TraceModel.read(trace);
        assertEquals(List.of(), atEnd.problems);
        assertEquals(1, atEnd.slicesNamed("quiet-slice").size(), "read once, though copied at the flush and again at the end");
        assertEquals(1, atEnd.slicesNamed("after-flush").size());
        assertEquals(atEnd.slicesNamed("quiet-slice").get(0).track(), atEnd.slicesNamed("after-flush").get(0).track(),
                "both on the thread's track");
    }
}

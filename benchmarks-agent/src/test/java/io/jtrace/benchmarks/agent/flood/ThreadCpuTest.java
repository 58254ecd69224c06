package io.jtrace.benchmarks.agent.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThreadCpuTest {
    private static final String C2_STAT = "4242 (C2 CompilerThre) S 4200 4200 1 0 -1 1077936192 1234 0 0 0 317 45 0 0 20 0 30 0 "
            + "5000 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 -1 1 0 0 0 0 0";

    @Test
    void aCompilerThreadsUserAndSystemTicksAreSummedPastANameWithSpaces() {
        assertEquals(317 + 45, ThreadCpu.COMPILER.ticks(C2_STAT));
        assertEquals(7 + 2, ThreadCpu.COMPILER.ticks(C2_STAT.replace("C2 CompilerThre", "C1 CompilerThre")
                .replace(" 317 45 ", " 7 2 ")));
    }

    @Test
    void anyOtherThreadCountsNothingEvenWithParenthesesInItsName() {
        assertEquals(0, ThreadCpu.COMPILER.ticks("17 (flood-3) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
        assertEquals(0, ThreadCpu.COMPILER.ticks("18 (x) (C2 CompilerThre) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
    }

    @Test
    void theTracerGroupIsJtracesThreadsOrJfrsAndNotTheCompilersOrTheFloods() {
        assertEquals(900 + 12, ThreadCpu.TRACER.ticks("19 (jtrace-service) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
        assertEquals(40 + 3, ThreadCpu.TRACER.ticks("20 (JFR Recorder Th) S 1 1 1 0 -1 0 0 0 0 0 40 3 0 0 20 0 1 0 5 0"));
        assertEquals(0, ThreadCpu.TRACER.ticks(C2_STAT));
        assertEquals(0, ThreadCpu.TRACER.ticks("17 (flood-3) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
    }

    @Test
    void aWindowCountsEachThreadsGrowthAllOfANewThreadAndNothingOfOneThatEnded() {
        Map<String, Long> atStart = Map.of("11", 500L, "12", 900L);
        // Thread 12 ended in the window (its 900 ticks went with it); thread 13 started in it.
        Map<String, Long> atEnd = Map.of("11", 530L, "13", 20L);
        assertEquals((30 + 20) * 10, ThreadCpu.millisBetween(atStart, atEnd));
        assertEquals(-1, ThreadCpu.millisBetween(null, atEnd));
    }
}

package io.jtrace.benchmarks.agent.flood;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CompilerCpuTest {
    @Test
    void aCompilerThreadsUserAndSystemTicksAreSummedPastANameWithSpaces() {
        String stat = "4242 (C2 CompilerThre) S 4200 4200 1 0 -1 1077936192 1234 0 0 0 317 45 0 0 20 0 30 0 "
                + "5000 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 -1 1 0 0 0 0 0";
        assertEquals(317 + 45, CompilerCpu.compilerTicks(stat));
        assertEquals(7 + 2, CompilerCpu.compilerTicks(stat.replace("C2 CompilerThre", "C1 CompilerThre")
                .replace(" 317 45 ", " 7 2 ")));
    }

    @Test
    void anyOtherThreadCountsNothingEvenWithParenthesesInItsName() {
        assertEquals(0, CompilerCpu.compilerTicks("17 (flood-3) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
        assertEquals(0, CompilerCpu.compilerTicks("18 (x) (C2 CompilerThre) R 1 1 1 0 -1 0 0 0 0 0 900 12 0 0 20 0 1 0 5 0"));
    }

}

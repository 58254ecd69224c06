package io.jtrace.agent.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class AgentCommandTest {
    @Test
    void optionsWithoutAVerbOnlyLoadTheAgent() {
        assertEquals(AgentCommand.Verb.LOAD, AgentCommand.parse(null).verb());
        assertEquals(AgentCommand.Verb.LOAD, AgentCommand.parse("log=debug").verb());
    }

    @Test
    void startAnywhereInTheOptionsStartsASession() {
        AgentCommand c = AgentCommand.parse("duration=5s,start,file=x.pftrace");
        assertEquals(AgentCommand.Verb.START, c.verb());
        assertEquals("duration=5s,start,file=x.pftrace", c.text());
    }

    @Test
    void stopFlushDumpAndStatusTakeTheirOwnOptions() {
        AgentCommand stop = AgentCommand.parse("stop,name=boot");
        assertEquals(AgentCommand.Verb.STOP, stop.verb());
        assertEquals("boot", stop.name());
        assertNull(AgentCommand.parse("stop").name());
        assertEquals(AgentCommand.Verb.FLUSH, AgentCommand.parse("flush").verb());
        AgentCommand dump = AgentCommand.parse("dump, name=r , file=/tmp/d.pftrace,log=info");
        assertEquals("r", dump.name());
        assertEquals("/tmp/d.pftrace", dump.file());
        assertEquals("info", dump.logLevel());
        assertEquals(AgentCommand.Verb.STATUS, AgentCommand.parse("status").verb());
    }

    @Test
    void mistakesAreNamed() {
        assertEquals("jtrace dump needs file=<path>",
                assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("dump,name=x")).getMessage());
        assertEquals("jtrace stop: unknown option 'file' (known: name, log)",
                assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("stop,file=x")).getMessage());
        assertEquals("jtrace status: unknown option 'name' (known: log)",
                assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("status,name=x")).getMessage());
        assertEquals("jtrace flush: option 'name' needs a value, as in name=... (from jcmd, which splits its arguments "
                + "at '=', quote them: \"flush,name=...\")",
                assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("flush,name=")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("stop,log=loud"));
        assertEquals("jtrace stop: option 'name' is given twice",
                assertThrows(IllegalArgumentException.class, () -> AgentCommand.parse("stop,name=a,name=b")).getMessage());
    }
}

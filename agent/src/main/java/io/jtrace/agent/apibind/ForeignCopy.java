package io.jtrace.agent.apibind;

/** What the agent asks of its adapter in another copy of the API; names no API class. */
public interface ForeignCopy {
    /** Plugs the agent into the copy: its backend, its category listener, the masks of its categories. */
    void install();

    /** Sets every category of the copy to its twin's session mask. */
    void refreshMasks();
}

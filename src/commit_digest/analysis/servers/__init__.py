"""The servers an analysis may be asked of, behind one interface: the reply forms (how a request
asks for structured output), the server families (what each kind of OpenAI-compatible server
reads), and the session that negotiates between them once and remembers what worked."""

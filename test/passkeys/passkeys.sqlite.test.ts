import { passkeySuite } from "./passkeys.suite";

passkeySuite("sqlite");

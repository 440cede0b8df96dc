import { addPasskeySuite } from "./add-passkey.suite";

addPasskeySuite("sqlite");

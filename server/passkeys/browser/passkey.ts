/*
 * /login/passkey.js: the one script of the sign-in pages. A form marked `data-passkey` ("get" or
 * "create") carries the WebAuthn options in `data-passkey-options` (JSON, binary values as
 * base64url); on submit this asks the browser for the passkey and posts the same form with the
 * answer in its hidden fields, so the server answers with a normal 303 navigation. The pages
 * carry no inline script (their CSP allows none); without JavaScript the form posts with empty
 * fields and the server explains that passkeys need it.
 */

interface PasskeyOptions {
  challenge: string
  rpId: string
  rpName?: string
  user?: { id: string; name: string; displayName: string }
  allow?: string[]
  exclude?: string[]
  /** COSE algorithms the server verifies, in order of preference (WebAuthn §5.8.5). */
  algorithms?: number[]
}

const fromBase64url = (text: string): ArrayBuffer => {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes.buffer
}

const toBase64url = (buffer: ArrayBuffer): string => {
  let binary = ''
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

const descriptors = (ids: string[] = []): PublicKeyCredentialDescriptor[] =>
  ids.map((id) => ({ type: 'public-key', id: fromBase64url(id) }))

function say(form: HTMLFormElement, message: string): void {
  const alert = form.querySelector<HTMLElement>('[data-passkey-alert]')
  if (!alert) return
  alert.textContent = message
  alert.hidden = false
}

function setField(form: HTMLFormElement, name: string, value: string): void {
  const field = form.querySelector<HTMLInputElement>(`input[name="${name}"]`)
  if (field) field.value = value
}

async function ask(mode: string, options: PasskeyOptions): Promise<Credential | null> {
  const timeout = 300_000
  if (mode === 'create') {
    const user = options.user!
    return navigator.credentials.create({
      publicKey: {
        challenge: fromBase64url(options.challenge),
        rp: { id: options.rpId, name: options.rpName ?? options.rpId },
        user: { id: fromBase64url(user.id), name: user.name, displayName: user.displayName },
        pubKeyCredParams: (options.algorithms ?? []).map((alg) => ({ type: 'public-key', alg })),
        authenticatorSelection: {
          residentKey: 'required',
          requireResidentKey: true,
          userVerification: 'required',
        },
        attestation: 'none',
        excludeCredentials: descriptors(options.exclude),
        timeout,
      },
    })
  }
  return navigator.credentials.get({
    publicKey: {
      challenge: fromBase64url(options.challenge),
      rpId: options.rpId,
      allowCredentials: descriptors(options.allow),
      userVerification: 'required',
      timeout,
    },
  })
}

function fill(form: HTMLFormElement, credential: PublicKeyCredential): void {
  const response = credential.response
  setField(form, 'client_data_json', toBase64url(response.clientDataJSON))
  if (response instanceof AuthenticatorAttestationResponse) {
    setField(form, 'attestation_object', toBase64url(response.attestationObject))
    return
  }
  const assertion = response as AuthenticatorAssertionResponse
  setField(form, 'credential_id', toBase64url(credential.rawId))
  setField(form, 'authenticator_data', toBase64url(assertion.authenticatorData))
  setField(form, 'signature', toBase64url(assertion.signature))
  setField(form, 'user_handle', assertion.userHandle ? toBase64url(assertion.userHandle) : '')
}

function attach(form: HTMLFormElement): void {
  const mode = form.dataset.passkey ?? 'get'
  if (!window.PublicKeyCredential || !navigator.credentials) {
    say(form, 'This browser does not support passkeys. Sign in another way, or use a browser that does.')
  }
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (!window.PublicKeyCredential || !navigator.credentials) {
      say(form, 'This browser does not support passkeys. Sign in another way, or use a browser that does.')
      return
    }
    const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')
    if (button) button.disabled = true
    try {
      const options = JSON.parse(form.dataset.passkeyOptions ?? '{}') as PasskeyOptions
      const credential = await ask(mode, options)
      if (!(credential instanceof PublicKeyCredential)) throw new Error('no credential')
      fill(form, credential)
      form.submit()
    } catch (error) {
      if (button) button.disabled = false
      const name = error instanceof DOMException ? error.name : ''
      say(
        form,
        name === 'InvalidStateError'
          ? 'This authenticator holds one of your passkeys already.'
          : name === 'NotAllowedError'
            ? 'The passkey request was cancelled or timed out. Try again.'
            : 'The browser could not use a passkey. Try again, or sign in another way.',
      )
    }
  })
}

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-passkey]')) attach(form)

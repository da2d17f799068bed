"""Spanish (es-ES and es-419, source A)."""

from oraculum.providers.locales import LocaleTable

LABELS: LocaleTable = {
    "composer": ("Chatear con ChatGPT",),
    "send": ("Enviar indicación", "Enviar mensaje", "Enviar"),
    "stop": ("Detener respuesta", "Detener"),  # unseen
    "add_files": ("Añadir archivos y más", "Agregar archivos y más"),
    "upload_entry": ("Añadir fotos y archivos", "Agregar fotos y archivos"),
    "copy": ("Copiar", "Copiar respuesta"),
    "retry": ("Reintentar",),  # unseen
    "close": ("Cerrar",),
    "dismiss": ("Ahora no", "Quizás más tarde", "No, gracias", "Cerrar", "Entendido",
                "Omitir", "Rechazar las no esenciales"),  # unseen
    "forbidden": ("Probar", "Mejorar el plan", "Comprar", "Suscribirse", "Aceptar",
                  "Aceptar todo"),  # unseen
    "upgrade": ("Mejorar el plan", "Mejorar"),  # unseen
    "deep_research": ("Investigación avanzada", "Investigar a fondo"),
    "model_opener": ("Selector de modelo", "Modelo"),
    "configure": ("Configurar...", "Configurar"),
    "thinking_effort": ("Esfuerzo de razonamiento",),  # unseen
    "intelligence": ("Inteligencia",),  # unseen
    "show_advanced": ("Mostrar opciones avanzadas",),  # unseen
    "power": ("Potencia",),  # unseen
    "Instant": ("Instantánea",),
    "Light": ("Ligero",),  # unseen
    "Standard": ("Estándar",),  # unseen
    "Extended": ("Extendido",),  # unseen
    "Medium": ("Media",),
    "High": ("Alta",),
    "Extra High": ("Muy alta",),
    "Pro": ("Pro",),
}  # fmt: skip
